/**
 * Authorization code with PKCE for a native app (RFC 8252, RFC 7636, S256
 * only): the authorization URL is opened in the system browser by the face
 * (the app's `openExternal`, the CLI's opener; never an embedded window), the
 * redirect lands on a loopback address of ours (a one-shot listener, or the
 * `/oauth/callback` of `workbench serve`), and the code is exchanged with the
 * verifier only this process holds.
 */
import * as oauth from "oauth4webapi";
import { describeError, requestOptions } from "./server.ts";
import type { ClientSide } from "./tokens.ts";
import { TOKEN_TIMEOUT_MS } from "./tokens.ts";

export interface AuthorizationRequest {
  url: string;
  state: string;
  /** Exchanges the callback's parameters for tokens; throws with words for the person. */
  exchange(params: URLSearchParams): Promise<oauth.TokenEndpointResponse>;
}

/** A fresh `state`: what ties the redirect to this sign-in (RFC 6749 §10.12). */
export function newState(): string {
  return oauth.generateRandomState();
}

export async function authorizationRequest(as: oauth.AuthorizationServer, side: ClientSide, redirectUri: string, scopes: string[], state: string, customFetch?: typeof fetch): Promise<AuthorizationRequest> {
  const methods = as.code_challenge_methods_supported;
  if (methods && !methods.includes("S256")) throw new Error(`${new URL(as.authorization_endpoint!).host} does not support PKCE with S256 (it offers ${methods.join(", ") || "none"}); the workbench signs in only with S256`);
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", side.client.client_id);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("response_type", "code");
  if (scopes.length) url.searchParams.set("scope", scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return {
    url: url.href,
    state,
    async exchange(params) {
      let validated: URLSearchParams;
      try {
        validated = oauth.validateAuthResponse(as, side.client, params, state);
      } catch (err) {
        if (err instanceof oauth.AuthorizationResponseError && err.error === "access_denied") throw new Error(`the sign-in was declined at ${new URL(as.authorization_endpoint!).host}.`, { cause: err });
        throw new Error(`the authorization server's answer was not accepted: ${describeError(err)}.`, { cause: err });
      }
      try {
        const options = { ...requestOptions(new URL(as.token_endpoint!), customFetch), signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) };
        const response = await oauth.authorizationCodeGrantRequest(as, side.client, side.auth, validated, redirectUri, verifier, options);
        return await oauth.processAuthorizationCodeResponse(as, side.client, response);
      } catch (err) {
        throw new Error(`the authorization server refused the code: ${describeError(err)}.`, { cause: err });
      }
    },
  };
}
