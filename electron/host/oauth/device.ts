/**
 * Device authorization (RFC 8628), for places with no browser beside the
 * workbench (a headless `serve`, a terminal over SSH): ask for a code, show
 * the person where to enter it, and poll the token endpoint as the server
 * asks: wait `interval` seconds between polls, five more after each
 * `slow_down`, keep going on `authorization_pending`, stop on
 * `expired_token`, `access_denied`, or when the code's lifetime is over.
 */
import * as oauth from "oauth4webapi";
import { describeError, oauthErrorCode, requestOptions } from "./server.ts";
import type { ClientSide } from "./tokens.ts";
import { TOKEN_TIMEOUT_MS } from "./tokens.ts";

export interface DeviceCode {
  verificationUri: string;
  verificationUriComplete?: string;
  userCode: string;
  /** Seconds between polls, as the server first asked. */
  interval: number;
  expiresAt: number;
  deviceCode: string;
}

export type PollEvent = { kind: "pending" } | { kind: "slow_down"; interval: number };

export async function requestDeviceCode(as: oauth.AuthorizationServer, side: ClientSide, scopes: string[], now: number, customFetch?: typeof fetch): Promise<DeviceCode> {
  const endpoint = new URL(as.device_authorization_endpoint!);
  let answer: oauth.DeviceAuthorizationResponse;
  try {
    const parameters: Record<string, string> = scopes.length ? { scope: scopes.join(" ") } : {};
    const response = await oauth.deviceAuthorizationRequest(as, side.client, side.auth, parameters, { ...requestOptions(endpoint, customFetch), signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
    answer = await oauth.processDeviceAuthorizationResponse(as, side.client, response);
  } catch (err) {
    throw new Error(`${endpoint.host} did not give a device code: ${describeError(err)}`, { cause: err });
  }
  return {
    verificationUri: answer.verification_uri,
    ...(answer.verification_uri_complete ? { verificationUriComplete: answer.verification_uri_complete } : {}),
    userCode: answer.user_code,
    interval: answer.interval ?? 5,
    expiresAt: now + answer.expires_in * 1000,
    deviceCode: answer.device_code,
  };
}

export interface PollOptions {
  now: () => number;
  signal: AbortSignal;
  onPoll?: (event: PollEvent) => void;
  fetch?: typeof fetch;
}

/** Polls until the person approves (tokens), declines, or the code expires; each ending is an Error with the person's words. */
export async function pollForTokens(as: oauth.AuthorizationServer, side: ClientSide, code: DeviceCode, opts: PollOptions): Promise<oauth.TokenEndpointResponse> {
  let interval = code.interval;
  const host = new URL(code.verificationUri).host;
  while (true) {
    await sleep(interval * 1000, opts.signal);
    // The server says expired_token when the code's time is up; this only stops a server that never does.
    if (opts.now() > code.expiresAt + 2 * interval * 1000) throw new Error(`the code ${code.userCode} expired before it was entered at ${host}; start the sign-in again`);
    try {
      const options = { ...requestOptions(new URL(as.token_endpoint!), opts.fetch), signal: AbortSignal.any([opts.signal, AbortSignal.timeout(TOKEN_TIMEOUT_MS)]) };
      const response = await oauth.deviceCodeGrantRequest(as, side.client, side.auth, code.deviceCode, options);
      return await oauth.processDeviceCodeResponse(as, side.client, response);
    } catch (err) {
      if (opts.signal.aborted) throw new Error("the sign-in was cancelled", { cause: err });
      switch (oauthErrorCode(err)) {
        case "authorization_pending":
          opts.onPoll?.({ kind: "pending" });
          continue;
        case "slow_down":
          interval += 5;
          opts.onPoll?.({ kind: "slow_down", interval });
          continue;
        case "expired_token":
          throw new Error(`the code ${code.userCode} expired before it was entered at ${host}; start the sign-in again`, { cause: err });
        case "access_denied":
          throw new Error(`the sign-in was declined at ${host}`, { cause: err });
        default:
          throw new Error(`${host} refused the sign-in: ${describeError(err)}`, { cause: err });
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("the sign-in was cancelled"));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("the sign-in was cancelled"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
