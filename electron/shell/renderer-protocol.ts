/**
 * What the window's `app://workbench/` scheme answers (main.ts registers it
 * with protocol.handle): the built renderer's files, and nothing else. Only
 * the host `workbench`; only files inside dist/renderer (a `..` or an encoded
 * one that climbs out is "not found"); HTML with the same CSP as `workbench
 * serve`. Plain Node (a fetch Response), so it is tested without Electron.
 */
import { readFile, stat } from "node:fs/promises";
import { join, normalize, sep } from "node:path";
import { BASE_HEADERS, CSP } from "../serve/security.ts";
import { contentTypeOf } from "../host/common/content-types.ts";
import { NOT_BUILT_MESSAGE } from "../serve/static.ts";

export const APP_SCHEME = "app";
export const APP_HOST = "workbench";

// Cross-origin isolation headers stay with `serve`: the window is one origin, and they would only risk its workers.
const HEADERS = { "x-content-type-options": BASE_HEADERS["x-content-type-options"]!, "referrer-policy": BASE_HEADERS["referrer-policy"]! };
const text = (status: number, body: string) => new Response(body, { status, headers: { ...HEADERS, "content-type": "text/plain; charset=utf-8" } });

export async function rendererResponse(requestUrl: string, rendererDir: string): Promise<Response> {
  let url: URL;
  let path: string;
  try {
    url = new URL(requestUrl);
    path = decodeURIComponent(url.pathname);
  } catch {
    return text(400, "bad request");
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || path.includes("\0")) return text(404, "not found");
  const relative = normalize(path === "/" ? "index.html" : path.slice(1));
  const file = join(rendererDir, relative);
  if (relative.startsWith("..") || !file.startsWith(rendererDir + sep)) return text(404, "not found");
  try {
    if (!(await stat(file)).isFile()) return text(404, "not found");
    const body = await readFile(file);
    const type = contentTypeOf(file);
    const headers: Record<string, string> = { ...HEADERS, "content-type": type };
    if (type.startsWith("text/html")) Object.assign(headers, { "content-security-policy": CSP, "cache-control": "no-store" });
    return new Response(body, { headers });
  } catch {
    return relative === "index.html" ? text(503, NOT_BUILT_MESSAGE) : text(404, "not found");
  }
}
