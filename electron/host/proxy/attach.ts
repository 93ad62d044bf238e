/**
 * Step 6b: put the credential where the scheme says: an Authorization header
 * (bearer, basic), or an API key in a header, the query or a cookie. Returns a
 * copy (the unsigned request is what gets recorded) and the secret values in the
 * forms they travel in, so the redactor can hide every one of them.
 */
import { checkHeaderFields } from "./build-request.ts";
import type { Credential, SchemeInUse } from "./credentials.ts";
import type { OutgoingRequest } from "./types.ts";

export interface SecretUse {
  label: string;
  value: string;
}

export function attachCredential(request: OutgoingRequest, scheme: SchemeInUse, credential: Credential): { request: OutgoingRequest; secrets: SecretUse[] } {
  const headers = { ...request.headers };
  const url = new URL(request.url);
  const secrets: SecretUse[] = [];
  switch (credential.kind) {
    case "none":
      break;
    case "bearer":
      headers.authorization = `Bearer ${credential.token}`;
      secrets.push({ label: credential.label, value: credential.token });
      break;
    case "basic": {
      const pair = `${credential.username}:${credential.password}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
      secrets.push({ label: credential.label, value: credential.password }, { label: credential.label, value: pair });
      break;
    }
    case "apiKey": {
      const s = scheme.scheme;
      secrets.push({ label: credential.label, value: credential.value });
      if (s.type !== "apiKey" || s.in === "header") headers[s.type === "apiKey" ? s.name.toLowerCase() : "authorization"] = credential.value;
      // Appended by hand: searchParams.set would re-encode the styled query the builder produced.
      else if (s.in === "query") url.search = `${url.search ? `${url.search}&` : "?"}${encodeURIComponent(s.name)}=${encodeURIComponent(credential.value)}`;
      else headers.cookie = [headers.cookie, `${s.name}=${encodeURIComponent(credential.value)}`].filter(Boolean).join("; ");
      break;
    }
  }
  // A credential with a line break (or a spec's apiKey name that is no header name) is refused here, in our words:
  // fetch's error would quote the header's value, credential and all.
  checkHeaderFields(headers);
  return { request: { ...request, headers, url }, secrets };
}

/**
 * The request as a person approving it should see it: the credential placed
 * where the scheme puts it, shown by its reference (`⟦vault:demo/token⟧`),
 * never its value. Nothing is resolved here. `described` is the resolver's
 * own words for a bearer credential (a sign-in: who, which scopes).
 */
export function previewCredential(request: OutgoingRequest, scheme: SchemeInUse | undefined, credentialRef: string | undefined, api: string, described?: string): OutgoingRequest {
  if (!scheme) return request;
  const ref = credentialRef ? `⟦${credentialRef}⟧` : "⟦no credential configured⟧";
  const s = scheme.scheme;
  const headers = { ...request.headers };
  const url = new URL(request.url);
  if (described) headers.authorization = `Bearer ⟦${described}⟧`;
  else if (s.type === "oauth2") headers.authorization = `Bearer ⟦OAuth2 token for ${api}⟧`;
  else if (s.type === "http" && s.scheme.toLowerCase() === "basic") headers.authorization = `Basic ⟦base64 of user:${ref}⟧`;
  else if (s.type === "http") headers.authorization = `Bearer ${ref}`;
  else if (s.type === "apiKey" && s.in === "header") headers[s.name.toLowerCase()] = ref;
  else if (s.type === "apiKey" && s.in === "query") url.search = `${url.search ? `${url.search}&` : "?"}${encodeURIComponent(s.name)}=${ref}`;
  else if (s.type === "apiKey") headers.cookie = [headers.cookie, `${s.name}=${ref}`].filter(Boolean).join("; ");
  return { ...request, headers, url };
}
