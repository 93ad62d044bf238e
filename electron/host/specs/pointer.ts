/**
 * JSON pointers (RFC 6901) and `$ref` strings. Every repair warning carries a
 * pointer into the source document, and every internal `$ref` is a pointer in
 * a URI fragment, so both directions live here.
 */
import type { JsonValue } from "../../../shared/json.ts";
import { isObject } from "./json-guards.ts";

export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

export function childPointer(base: string, ...tokens: (string | number)[]): string {
  let out = base;
  for (const token of tokens) out += `/${escapeToken(token)}`;
  return out;
}

export type ParsedRef =
  | { kind: "internal"; tokens: string[]; pointer: string }
  | { kind: "external"; ref: string }
  | { kind: "invalid"; reason: string };

/** Reads a `$ref`: `#/a/b` is internal; anything with a document part is external (never fetched). */
export function parseRef(ref: string): ParsedRef {
  const hash = ref.indexOf("#");
  if (hash !== 0) {
    if (ref.trim() === "") return { kind: "invalid", reason: "the $ref is empty" };
    return { kind: "external", ref };
  }
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return { kind: "invalid", reason: `the $ref ${JSON.stringify(ref)} has a malformed %-escape` };
  }
  if (fragment === "") return { kind: "internal", tokens: [], pointer: "" };
  if (!fragment.startsWith("/")) return { kind: "invalid", reason: `the $ref ${JSON.stringify(ref)} names an anchor, not a JSON pointer; anchors are not supported` };
  const tokens = fragment.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  return { kind: "internal", tokens, pointer: childPointer("", ...tokens) };
}

/** The value at `tokens` in `doc` (own keys only), or undefined. */
export function valueAt(doc: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  let node: JsonValue | undefined = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isObject(node)) {
      node = Object.hasOwn(node, token) ? node[token] : undefined;
    } else {
      return undefined;
    }
  }
  return node;
}
