/**
 * Serves the built renderer (dist/renderer) to the browser tab: files only
 * from inside that folder, with their content types, the CSP on HTML, and a
 * page that says how to build it when it has not been built.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, normalize, sep } from "node:path";
import { rendererDir } from "../host/common/assets.ts";
import { contentTypeOf } from "../host/common/content-types.ts";
import { BASE_HEADERS, CSP, sendText } from "./security.ts";

export const DEFAULT_RENDERER_DIR = rendererDir();

export const NOT_BUILT_MESSAGE = "The workbench UI has not been built, so there is nothing to show here yet. Build it with `npm run build` (or `npm install`, which builds it) in the workbench checkout, then reload this page. The bridge and /mcp work meanwhile.";

export function rendererIsBuilt(dir: string): boolean {
  return existsSync(join(dir, "index.html"));
}

export function serveRenderer(req: IncomingMessage, res: ServerResponse, dir: string): void {
  if (req.method !== "GET" && req.method !== "HEAD") return sendText(res, 405, "method not allowed");
  const path = decodeSafe(new URL(req.url ?? "/", "http://x").pathname);
  if (path === undefined) return sendText(res, 400, "bad path");
  if (!rendererIsBuilt(dir)) return sendText(res, 503, NOT_BUILT_MESSAGE);
  const relative = normalize(path === "/" ? "index.html" : path.slice(1));
  const file = join(dir, relative);
  if (relative.startsWith("..") || (file !== dir && !file.startsWith(dir + sep))) return sendText(res, 404, "not found");
  let size: number;
  try {
    const info = statSync(file);
    if (!info.isFile()) return sendText(res, 404, "not found");
    size = info.size;
  } catch {
    return sendText(res, 404, "not found");
  }
  const type = contentTypeOf(file);
  const headers: Record<string, string> = { ...BASE_HEADERS, "content-type": type, "content-length": String(size) };
  if (type.startsWith("text/html")) Object.assign(headers, { "content-security-policy": CSP, "x-frame-options": "DENY", "cache-control": "no-store" });
  // Vite fingerprints assets, so they may be cached; everything else is revalidated.
  else headers["cache-control"] = relative.startsWith(`assets${sep}`) ? "public, max-age=31536000, immutable" : "no-cache";
  res.writeHead(200, headers);
  if (req.method === "HEAD") return void res.end();
  createReadStream(file).pipe(res);
}

function decodeSafe(path: string): string | undefined {
  try {
    const decoded = decodeURIComponent(path);
    return decoded.includes("\0") ? undefined : decoded;
  } catch {
    return undefined;
  }
}
