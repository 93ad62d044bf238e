/**
 * Step 6b: put the credential where the scheme says: an Authorization header
 * (bearer, basic), or an API key in a header, the query or a cookie. Returns a
 * copy (the unsigned request is what gets recorded) and the secret values in the
 * forms they travel in, so the redactor can hide every one of them.
 */
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
  return { request: { ...request, headers, url }, secrets };
}
