/**
 * The authorization server a sign-in talks to, as oauth4webapi's
 * `AuthorizationServer`: its RFC 8414 (or OpenID Connect) metadata where it
 * publishes them, which also name its revocation and device endpoints; the
 * spec's URLs where it does not. Plain http is refused except to loopback
 * (a test server, a local identity provider), as for API calls.
 */
import * as oauth from "oauth4webapi";
import { isLoopback } from "../proxy/credentials.ts";
import type { SignInSetup } from "./setup.ts";

export interface ServerLookup {
  fetch?: typeof fetch;
  timeoutMs?: number;
  log?: (message: string) => void;
}

export type ServerResult = { ok: true; as: oauth.AuthorizationServer; discovered: boolean } | { ok: false; message: string };

const DISCOVERY_TIMEOUT_MS = 10_000;

export async function findAuthorizationServer(setup: SignInSetup, lookup: ServerLookup = {}): Promise<ServerResult> {
  const log = lookup.log ?? (() => {});
  let as: oauth.AuthorizationServer | undefined;
  for (const candidate of setup.discovery) {
    as = await discover(candidate, lookup).catch((err: unknown) => {
      log(`oauth: no metadata for ${setup.api} at ${candidate.issuer}: ${describeError(err)}`);
      return undefined;
    });
    if (as) break;
  }
  const discovered = as !== undefined;
  // The spec's URLs fill what the metadata leaves out (or stand alone when there are none).
  as = {
    ...(as ?? { issuer: new URL(setup.tokenUrl ?? setup.authorizationUrl ?? setup.deviceAuthorizationUrl ?? "http://invalid").origin }),
    ...(!as?.authorization_endpoint && setup.authorizationUrl ? { authorization_endpoint: setup.authorizationUrl } : {}),
    ...(!as?.token_endpoint && setup.tokenUrl ? { token_endpoint: setup.tokenUrl } : {}),
    ...(!as?.device_authorization_endpoint && setup.deviceAuthorizationUrl ? { device_authorization_endpoint: setup.deviceAuthorizationUrl } : {}),
  };
  if (!as.token_endpoint) return { ok: false, message: `neither the spec of ${setup.api} nor its authorization server says where to get tokens (a tokenUrl)` };
  for (const url of [as.authorization_endpoint, as.token_endpoint, as.device_authorization_endpoint, as.revocation_endpoint]) {
    if (url && !secureEnough(new URL(url))) return { ok: false, message: `the sign-in endpoint ${new URL(url).origin} of ${setup.api} is plain http; only https (or loopback) is used for sign-ins` };
  }
  return { ok: true, as, discovered };
}

async function discover(candidate: SignInSetup["discovery"][number], lookup: ServerLookup): Promise<oauth.AuthorizationServer | undefined> {
  const issuer = new URL(candidate.issuer);
  const options = { ...requestOptions(issuer, lookup.fetch), signal: AbortSignal.timeout(lookup.timeoutMs ?? DISCOVERY_TIMEOUT_MS) };
  if (candidate.openIdConfiguration) {
    const response = await (lookup.fetch ?? fetch)(candidate.openIdConfiguration, { headers: { accept: "application/json" }, redirect: "error", signal: options.signal });
    return oauth.processDiscoveryResponse(issuer, response);
  }
  // RFC 8414 first, then OpenID Connect's well-known document.
  for (const algorithm of ["oauth2", "oidc"] as const) {
    const response = await oauth.discoveryRequest(issuer, { ...options, algorithm });
    if (response.status === 404) {
      await response.body?.cancel();
      continue;
    }
    return oauth.processDiscoveryResponse(issuer, response);
  }
  return undefined;
}

/** oauth4webapi's per-request options: plain http to loopback allowed, a fetch injected for tests. */
export function requestOptions(url: URL, customFetch?: typeof fetch): { [oauth.allowInsecureRequests]?: boolean; [oauth.customFetch]?: typeof fetch } {
  return {
    ...(url.protocol === "http:" && isLoopback(url.hostname) ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(customFetch ? { [oauth.customFetch]: customFetch } : {}),
  };
}

function secureEnough(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname));
}

/** An error's words for the host log: oauth4webapi's message and code, never a response body (it could hold a token). */
export function describeError(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError) return `${err.error}${err.error_description ? `: ${err.error_description}` : ""} (HTTP ${err.status})`;
  if (err instanceof oauth.AuthorizationResponseError) return `${err.error}${err.error_description ? `: ${err.error_description}` : ""}`;
  if (err instanceof Error) return `${err.message}${"code" in err && typeof err.code === "string" ? ` (${err.code})` : ""}`;
  return String(err);
}

/**
 * The OAuth error code of a failed token request, if the server said one.
 * GitHub answers device-flow polls with HTTP 200 and an `error` field, which
 * oauth4webapi reports as a response missing its access_token: read it there.
 */
export function oauthErrorCode(err: unknown): string | undefined {
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) return err.error;
  if (err instanceof oauth.OperationProcessingError) {
    const cause = err.cause as { body?: { error?: unknown } } | undefined;
    if (typeof cause?.body?.error === "string") return cause.body.error;
  }
  return undefined;
}
