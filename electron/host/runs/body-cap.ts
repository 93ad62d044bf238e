/**
 * Caps a recorded request or response body before it is stored, so that one
 * huge download cannot bloat the store and every later list or export. The
 * cut lands on a character boundary (UTF-8) or a whole base64 quantum, so the
 * stored body is still valid text; `truncated` and `bodyBytes` (the
 * whole size) say what was cut; a body under the cap is stored as given.
 */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

interface WithBody {
  body?: string;
  bodyEncoding?: "utf8" | "base64";
  truncated?: boolean;
  bodyBytes?: number;
}

export function capBody<T extends WithBody>(record: T, maxBytes: number): T {
  if (record.body === undefined) return record;
  if (record.bodyEncoding === "base64") return capBase64(record, record.body, maxBytes);
  const bytes = Buffer.from(record.body, "utf8");
  if (bytes.length <= maxBytes) return record;
  const body = bytes.subarray(0, utf8Boundary(bytes, maxBytes)).toString("utf8");
  return { ...record, body, truncated: true, bodyBytes: record.bodyBytes ?? bytes.length };
}

function capBase64<T extends WithBody>(record: T, body: string, maxBytes: number): T {
  const maxChars = Math.floor(maxBytes / 3) * 4;
  if (body.length <= maxChars) return record;
  return { ...record, body: body.slice(0, maxChars), truncated: true, bodyBytes: record.bodyBytes ?? Buffer.byteLength(body, "base64") };
}

/** The largest cut at or below `max` that does not split a multi-byte character. */
function utf8Boundary(bytes: Buffer, max: number): number {
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // bytes[end] continues a character: cut before its lead byte
  return end;
}
