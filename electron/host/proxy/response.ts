/**
 * Step 8: what the program receives, and what the call log keeps. The body is
 * decoded once (in the charset the upstream declared) and parsed by content
 * type (JSON, text; binary as base64 under a size cap, else a summary). Nothing
 * here redacts: the pipeline's exits do (the answer as it crosses into the
 * sandbox, after decoding, so a secret the upstream spelt with JSON `\u`
 * escapes is found in its decoded form; the record as it is stored, whose text
 * scan knows the escaped forms too). Only
 * allowlisted response headers cross into the sandbox: cookies and whatever
 * else an upstream sends stay on the host.
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../../shared/json.ts";
import type { RecordedResponse } from "../../../shared/runs.ts";
import type { RawResponse } from "./send.ts";
import type { CallResponse } from "./types.ts";

/** Headers every program may read; APIs add their own with `responseHeaders`. */
export const DEFAULT_RESPONSE_HEADERS = ["content-type", "content-length", "location", "link", "retry-after", "etag", "last-modified"];

/** Binary bodies up to this size reach the program as base64; larger ones as a summary. */
export const MAX_BINARY_INLINE = 256 * 1024;

const utf8 = new TextDecoder();

export interface ReadResponse {
  response: CallResponse;
  recorded: RecordedResponse;
}

export function readResponse(raw: RawResponse, allowHeaders: string[]): ReadResponse {
  const allow = new Set([...DEFAULT_RESPONSE_HEADERS, ...allowHeaders.map((h) => h.toLowerCase())]);
  const headers: Record<string, string> = {};
  const recordedHeaders: Record<string, string> = {};
  raw.headers.forEach((value, name) => {
    recordedHeaders[name] = value;
    if (allow.has(name)) headers[name] = value;
  });
  const contentType = raw.headers.get("content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  const bytes = raw.body;
  if (bytes.byteLength === 0) {
    return { response: { status: raw.status, headers, body: null }, recorded: { status: raw.status, headers: recordedHeaders, body: "", bodyEncoding: "utf8" } };
  }
  const json = /^application\/([\w.-]+\+)?json$/.test(type) || (!type && looksLikeJson(bytes));
  const decoder = textDecoderFor(contentType);
  if (json || isTextual(type) || (!type && isUtf8(bytes))) {
    const text = decoder.decode(bytes);
    let body: JsonValue = text;
    if (json) {
      try {
        body = JSON.parse(text) as JsonValue;
      } catch {
        body = text; // an upstream that lies about JSON: give the program the text
      }
    }
    return { response: { status: raw.status, headers, body }, recorded: { status: raw.status, headers: recordedHeaders, body: text, bodyEncoding: "utf8" } };
  }
  const summary: Record<string, JsonValue> = { contentType: type || "application/octet-stream", size: bytes.byteLength };
  if (bytes.byteLength <= MAX_BINARY_INLINE) summary.base64 = Buffer.from(bytes).toString("base64");
  else summary.sha256 = createHash("sha256").update(bytes).digest("hex");
  return {
    response: { status: raw.status, headers, body: { binary: summary } },
    recorded: { status: raw.status, headers: recordedHeaders, body: Buffer.from(bytes).toString("base64"), bodyEncoding: "base64" },
  };
}

/** The declared charset's decoder when the platform knows it (utf-16, latin1, ...), else UTF-8. */
function textDecoderFor(contentType: string): { decode(bytes: Uint8Array): string } {
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(contentType)?.[1]?.toLowerCase();
  if (!charset || charset === "utf-8" || charset === "utf8") return utf8;
  try {
    return new TextDecoder(charset);
  } catch {
    return utf8;
  }
}

/**
 * Redacts several short strings in one pass (a call's headers): one scan
 * instead of one per header. NUL never occurs in header values or secrets.
 */
export function redactEach(texts: string[], redact: (text: string) => string): string[] {
  if (texts.length === 0) return texts;
  const joined = redact(texts.join("\u0000"));
  const parts = joined.split("\u0000");
  return parts.length === texts.length ? parts : texts.map(redact);
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
