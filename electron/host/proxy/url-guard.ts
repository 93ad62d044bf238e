/**
 * Step 5b: the URL a call goes to stays inside its operation. A path parameter
 * is one literal segment: it can never add a segment (an unencoded `/`, which a
 * spec's `allowReserved` would allow), remove one (an empty value) or climb one
 * (`.` and `..`, which `encodeURIComponent` leaves as they are, and `%2e`
 * forms, which URL parsing treats as dots too). And whatever the spec's path
 * or the parameters say, the URL as parsed (after dot segments, backslashes and
 * percent-decoding rules) must start with the API's base URL and have exactly
 * the template's number of segments below it. Both checks run on every request
 * built, before and after vault references are substituted, and on every
 * redirect the sender would follow with the credential.
 */
import { CallFailure } from "./types.ts";

/** `.`, `..` and every percent-encoded spelling of them (`%2e`, `.%2E`, ...). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Refuses a path parameter's serialised text when, as a segment (or part of
 * one, with the template's literal text around it), it would not stay one
 * literal segment.
 */
export function checkParameterSegment(segment: string, parameters: string[], template: string): void {
  if (segment === "" || DOT_SEGMENT.test(segment)) {
    throw new CallFailure(
      "CallRejected",
      `path parameter${parameters.length > 1 ? "s" : ""} ${parameters.map((p) => `"${p}"`).join(", ")} of ${template} would make the segment ${JSON.stringify(segment)}, which ${segment === "" ? "removes a segment" : "climbs the path"}; a path parameter must be one literal segment. Nothing was sent.`,
    );
  }
  if (segment.includes("/")) {
    throw new CallFailure("CallRejected", `path parameter${parameters.length > 1 ? "s" : ""} ${parameters.map((p) => `"${p}"`).join(", ")} of ${template} would add a "/" to the path; a path parameter must be one literal segment. Nothing was sent.`);
  }
}

/** Segments of a path (`/a/b/` has three: a, b and the empty last one). */
function segmentsOf(path: string): string[] {
  return path.replace(/^\//, "").split("/");
}

/**
 * Refuses a URL that, once parsed, is not the API's base URL followed by
 * exactly `templateSegments` segments, or that carries user info.
 */
/** Base URLs parsed once: every call checks against its API's. */
const parsedBases = new Map<string, URL>();
function parseBase(baseUrl: string): URL {
  let base = parsedBases.get(baseUrl);
  if (!base) {
    if (parsedBases.size > 500) parsedBases.clear();
    base = new URL(baseUrl);
    parsedBases.set(baseUrl, base);
  }
  return base;
}

export function checkUnderBase(url: URL, baseUrl: string, templateSegments: number, template: string): void {
  const base = parseBase(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  const outside = (why: string) =>
    new CallFailure("CallRejected", `the request for ${template} would go to ${url.origin}${url.pathname}, ${why}; nothing was sent`);
  if (url.protocol !== base.protocol || url.host !== base.host) throw outside(`which is not the API's base URL ${base.origin}`);
  if (url.username || url.password) throw outside("which carries user info");
  if (!url.pathname.startsWith(`${basePath}/`)) throw outside(`which is outside the API's base path ${basePath || "/"}`);
  const below = segmentsOf(url.pathname.slice(basePath.length));
  if (below.length !== templateSegments || below.some((s) => DOT_SEGMENT.test(s))) {
    throw outside(`which does not have the ${templateSegments} segment${templateSegments === 1 ? "" : "s"} of ${template} below the base path`);
  }
}

/** The number of segments a path template has below the base (`/things/{id}` has 2, `/` has 1). */
export function templateSegmentCount(template: string): number {
  return segmentsOf(template.startsWith("/") ? template : `/${template}`).length;
}

/** Whether a redirect target is still under the API's base URL (same origin, under the base path). */
export function isUnderBase(url: URL, baseUrl: string): boolean {
  const base = parseBase(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  return url.protocol === base.protocol && url.host === base.host && !url.username && !url.password && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`));
}
