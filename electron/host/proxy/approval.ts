/**
 * What a person approves is what is sent. When a call stops for a decision,
 * the request as shown to the person (method, full URL, headers with vault
 * references unexpanded and the credential by reference, body) is hashed into
 * a fingerprint stored with the call. When the approved call is about to be
 * sent (in this process or another, minutes later), the request is rebuilt
 * from the program's arguments and the API's settings as they are now, and
 * its fingerprint compared: any difference (the base URL moved, the credential
 * reference or auth scheme changed, a header setting changed) asks the person
 * again and says what changed. Nothing the person did not see is sent under
 * their approval.
 */
import { createHash } from "node:crypto";
import type { RecordedRequest } from "../../../shared/runs.ts";
import { canonicalJson } from "./canonical-json.ts";
import type { ApiTarget } from "./types.ts";

/** The URL with a runtime base (the demo server's port) replaced by the name approvals bind to. */
function boundUrl(url: string, target: ApiTarget): string {
  if (target.boundBaseUrl && url.startsWith(target.baseUrl)) return `${target.boundBaseUrl}${url.slice(target.baseUrl.length)}`;
  return url;
}

/** A multipart body's boundary is random per build; it is not part of what a person approves. */
function withoutBoundary(headers: Record<string, string>): Record<string, string> {
  const type = headers["content-type"];
  if (!type || !/boundary=/i.test(type)) return headers;
  return { ...headers, "content-type": type.replace(/;\s*boundary=("[^"]*"|[^;]*)/i, "") };
}

export function requestFingerprint(shown: RecordedRequest, target: ApiTarget): string {
  const canonical = canonicalJson({
    method: shown.method,
    url: boundUrl(shown.url, target),
    headers: withoutBoundary(shown.headers),
    body: shown.body ?? null,
    bodyEncoding: shown.bodyEncoding ?? "utf8",
  });
  return createHash("sha256").update(canonical).digest("hex");
}

/** What changed between the request a person saw and the one that would be sent now, in words. */
export function describeChanges(before: RecordedRequest, after: RecordedRequest): string[] {
  const changes: string[] = [];
  if (before.method !== after.method) changes.push(`the method changed from ${before.method} to ${after.method}`);
  const was = safeUrl(before.url);
  const now = safeUrl(after.url);
  if (!was || !now) {
    if (before.url !== after.url) changes.push(`the URL changed from ${before.url} to ${after.url}`);
  } else {
    if (was.origin !== now.origin) changes.push(`the destination changed from ${was.origin} to ${now.origin}`);
    if (was.pathname !== now.pathname) changes.push(`the path changed from ${was.pathname} to ${now.pathname}`);
    if (was.search !== now.search) changes.push(`the query changed from "${was.search}" to "${now.search}"`);
  }
  const names = new Set([...Object.keys(before.headers), ...Object.keys(after.headers)]);
  for (const name of [...names].sort()) {
    const a = before.headers[name];
    const b = after.headers[name];
    if (a === b || (name === "content-type" && a && b && withoutBoundary({ [name]: a })[name] === withoutBoundary({ [name]: b })[name])) continue;
    if (a === undefined) changes.push(`header ${name} was added: ${b}`);
    else if (b === undefined) changes.push(`header ${name} was removed (it was ${a})`);
    else changes.push(`header ${name} changed from ${a} to ${b}`);
  }
  if ((before.body ?? "") !== (after.body ?? "")) changes.push("the body changed");
  // A change the stored (capped) copy cannot show, such as the tail of a long body.
  if (changes.length === 0) changes.push("the request differs from the one approved (past the part the record keeps)");
  return changes;
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
