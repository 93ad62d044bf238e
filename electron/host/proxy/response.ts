/**
 * Step 8: what the program receives. The body is parsed by content type (JSON,
 * text; binary as base64 under a size cap, else a summary), and only
 * allowlisted response headers cross into the sandbox: cookies and whatever
 * else an upstream sends stay on the host.
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../../shared/json.ts";
import type { RawResponse } from "./send.ts";
import type { CallResponse } from "./types.ts";

/** Headers every program may read; APIs add their own with `responseHeaders`. */
export const DEFAULT_RESPONSE_HEADERS = ["content-type", "content-length", "location", "link", "retry-after", "etag", "last-modified"];

/** Binary bodies up to this size reach the program as base64; larger ones as a summary. */
export const MAX_BINARY_INLINE = 256 * 1024;

export function toCallResponse(raw: RawResponse, allowHeaders: string[]): CallResponse {
  const allow = new Set([...DEFAULT_RESPONSE_HEADERS, ...allowHeaders.map((h) => h.toLowerCase())]);
  const headers: Record<string, string> = {};
  raw.headers.forEach((value, name) => {
    if (allow.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  });
  return { status: raw.status, headers, body: parseBody(raw.body, raw.headers.get("content-type") ?? "") };
}

export function parseBody(bytes: Uint8Array, contentType: string): JsonValue {
  if (bytes.byteLength === 0) return null;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (/^application\/([\w.-]+\+)?json$/.test(type) || (!type && looksLikeJson(bytes))) {
    const text = new TextDecoder().decode(bytes);
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      return text; // an upstream that lies about JSON: give the program the text
    }
  }
  if (isTextual(type) || (!type && isUtf8(bytes))) return new TextDecoder().decode(bytes);
  const summary: Record<string, JsonValue> = { contentType: type || "application/octet-stream", size: bytes.byteLength };
  if (bytes.byteLength <= MAX_BINARY_INLINE) summary.base64 = Buffer.from(bytes).toString("base64");
  else summary.sha256 = createHash("sha256").update(bytes).digest("hex");
  return { binary: summary };
}

function isTextual(type: string): boolean {
  return type.startsWith("text/") || /\b(xml|javascript|ecmascript|yaml|x-www-form-urlencoded|graphql|csv)\b/.test(type) || type.endsWith("+xml");
}

function looksLikeJson(bytes: Uint8Array): boolean {
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  return first === 0x7b || first === 0x5b;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, 4096));
    return !bytes.subarray(0, 4096).includes(0);
  } catch {
    return false;
  }
}
