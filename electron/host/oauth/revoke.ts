/**
 * Signing out at the server (RFC 7009) where it offers a revocation
 * endpoint: the refresh token first (revoking it ends the whole grant on
 * most servers), then the access token. Where there is none (GitHub's OAuth
 * apps, for one), the person is told to revoke the app's access in their
 * account there. Returns the words for the person, ending with "; ".
 */
import * as oauth from "oauth4webapi";
import type { StoredSignIn } from "./grants.ts";
import { describeError, requestOptions } from "./server.ts";
import { TOKEN_TIMEOUT_MS, type ClientSide } from "./tokens.ts";

export async function revokeSignIn(signIn: StoredSignIn, side: ClientSide, customFetch: typeof fetch | undefined, log: (message: string) => void): Promise<string> {
  const { record } = signIn;
  if (!record.revocationEndpoint) {
    return `${new URL(record.tokenEndpoint).host} offers no token revocation (RFC 7009), so the tokens stay valid there until they expire; revoke the app's access in your account settings at ${new URL(record.tokenEndpoint).host} to end them now; `;
  }
  const as: oauth.AuthorizationServer = { issuer: record.issuer, token_endpoint: record.tokenEndpoint, revocation_endpoint: record.revocationEndpoint };
  const tokens = [
    ...(signIn.refreshToken ? [{ token: signIn.refreshToken, hint: "refresh_token" }] : []),
    { token: signIn.accessToken, hint: "access_token" },
  ];
  const failures: string[] = [];
  for (const { token, hint } of tokens) {
    try {
      const options = { ...requestOptions(new URL(record.revocationEndpoint), customFetch), signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS), additionalParameters: { token_type_hint: hint } };
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, side.client, side.auth, token, options));
    } catch (err) {
      failures.push(`${hint.replace("_", " ")}: ${describeError(err)}`);
    }
  }
  if (failures.length) {
    log(`oauth: revoking the sign-in to ${record.api} failed: ${failures.join("; ")}`);
    return `the server did not confirm the revocation (${failures.join("; ")}); `;
  }
  return `the server revoked the tokens; `;
}
