/**
 * Token responses into sign-ins, and refreshing them. Everything protocol is
 * oauth4webapi's (request building, response checks, ID token claims); this
 * file decides what to keep and how a failure is worded. No token and no
 * response body ever reaches a message or the log: errors are described by
 * their OAuth error code and description only.
 */
import * as oauth from "oauth4webapi";
import { describeError, oauthErrorCode, requestOptions } from "./server.ts";
import { newRecord, type SignInRecord, type StoredSignIn } from "./grants.ts";
import type { SignInMethod } from "./setup.ts";

export const TOKEN_TIMEOUT_MS = 30_000;

export interface ClientSide {
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

/** A public client (a native app has no secret it could keep) unless a client secret is configured. */
export function clientSide(clientId: string, clientSecret?: string): ClientSide {
  return { client: { client_id: clientId }, auth: clientSecret ? oauth.ClientSecretBasic(clientSecret) : oauth.None() };
}

export interface SignInContext {
  api: string;
  method: SignInMethod;
  as: oauth.AuthorizationServer;
  clientId: string;
  baseUrl: string;
  requestedScopes: string[];
  now: number;
}

/** The sign-in to keep from a token endpoint's answer. */
export function signInFrom(tokens: oauth.TokenEndpointResponse, ctx: SignInContext): StoredSignIn {
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  const who = [claims?.preferred_username, claims?.email, claims?.name, claims?.sub].find((v): v is string => typeof v === "string" && v !== "");
  const record = newRecord({
    api: ctx.api,
    method: ctx.method,
    issuer: ctx.as.issuer,
    tokenEndpoint: ctx.as.token_endpoint!,
    ...(ctx.as.revocation_endpoint ? { revocationEndpoint: ctx.as.revocation_endpoint } : {}),
    clientId: ctx.clientId,
    baseUrl: ctx.baseUrl,
    scopes: grantedScopes(tokens, ctx.requestedScopes),
    ...(who ? { who } : {}),
    signedInAt: new Date(ctx.now).toISOString(),
    ...(tokens.expires_in !== undefined ? { expiresAt: new Date(ctx.now + tokens.expires_in * 1000).toISOString() } : {}),
  });
  return { record, accessToken: tokens.access_token, ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}) };
}

/** RFC 6749 §3.3: no `scope` in the answer means the scopes asked for were granted. */
function grantedScopes(tokens: oauth.TokenEndpointResponse, requested: string[]): string[] {
  return tokens.scope !== undefined ? splitScopes(tokens.scope) : requested.filter((s) => s !== "openid");
}

/** Space-separated per RFC 6749; GitHub separates them with commas. */
function splitScopes(scope: string): string[] {
  return scope.split(/[\s,]+/).filter(Boolean);
}

/** The server's word on a sign-in's tokens, for the host log and the person. */
export type RefreshResult =
  | { ok: true; signIn: StoredSignIn }
  /** `final`: the server refused the refresh token (revoked, expired, client gone): only a new sign-in helps. */
  | { ok: false; final: boolean; why: string };

export async function refreshSignIn(signIn: StoredSignIn, side: ClientSide, now: number, customFetch?: typeof fetch): Promise<RefreshResult> {
  const { record } = signIn;
  if (!signIn.refreshToken) return { ok: false, final: true, why: "the access token expired and the server gave no refresh token" };
  const as: oauth.AuthorizationServer = { issuer: record.issuer, token_endpoint: record.tokenEndpoint };
  let tokens: oauth.TokenEndpointResponse;
  try {
    const options = { ...requestOptions(new URL(record.tokenEndpoint), customFetch), signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) };
    const response = await oauth.refreshTokenGrantRequest(as, side.client, side.auth, signIn.refreshToken, options);
    tokens = await oauth.processRefreshTokenResponse(as, side.client, response);
  } catch (err) {
    const code = oauthErrorCode(err);
    // invalid_grant: revoked, expired or already used; invalid_client/unauthorized_client: the client itself is gone.
    const final = code === "invalid_grant" || code === "invalid_client" || code === "unauthorized_client";
    return { ok: false, final, why: `the server refused to refresh it: ${describeError(err)}` };
  }
  const refreshed: SignInRecord = {
    ...record,
    scopes: tokens.scope !== undefined ? splitScopes(tokens.scope) : record.scopes,
    refreshedAt: new Date(now).toISOString(),
  };
  delete refreshed.expiresAt;
  if (tokens.expires_in !== undefined) refreshed.expiresAt = new Date(now + tokens.expires_in * 1000).toISOString();
  // A server that rotates refresh tokens sends a new one; one that does not keeps the old one valid.
  return { ok: true, signIn: { record: refreshed, accessToken: tokens.access_token, refreshToken: tokens.refresh_token ?? signIn.refreshToken } };
}

/**
 * Whether the access token should be renewed before use: it has expired, or
 * will within a little while (a quarter of its life, at most 30 s), so that it
 * never expires between the check and the send.
 */
export function needsRefresh(record: SignInRecord, now: number): boolean {
  if (!record.expiresAt) return false;
  const expires = Date.parse(record.expiresAt);
  const issued = Date.parse(record.refreshedAt ?? record.signedInAt);
  const margin = Math.min(30_000, Math.max(0, expires - issued) / 4);
  return now >= expires - margin;
}
