/**
 * A recorded request as a curl command. The record is already redacted, so
 * secrets appear as their markers and vault references stay references: the
 * command is safe to paste anywhere, and says where a secret goes.
 */
import type { RecordedRequest } from "../../shared/runs.ts";

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function toCurl(request: RecordedRequest): string {
  const method = request.method.toUpperCase();
  const lines = [`curl ${method === "GET" ? "" : `-X ${method} `}${quote(request.url)}`];
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() === "content-length" || name.toLowerCase() === "host") continue;
    lines.push(`-H ${quote(`${name}: ${value}`)}`);
  }
  if (request.body !== undefined) {
    if (request.bodyEncoding === "base64") lines.push(`--data-binary @body.bin  # ${request.bodyBytes ?? "?"} bytes of binary body, not shown`);
    else lines.push(`--data-raw ${quote(request.body)}`);
  }
  return lines.join(" \\\n  ");
}
