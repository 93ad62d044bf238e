/**
 * The loopback server's guards, notebook-server style. A page on another
 * site can make the browser send requests to 127.0.0.1, and a rebinding DNS
 * name can make them look same-origin; so: the Host header must name this
 * server exactly (rebinding), a request that says it comes from another
 * origin is refused (cross-site requests), the session is an HttpOnly
 * SameSite=Strict cookie got by presenting the printed token, and no CORS
 * header is ever sent. See docs/serve-security.md.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Sent on every response. */
export const BASE_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** The Host header must be this server's own address and port: anything else is DNS rebinding or a mistake. */
export function hostIsOurs(req: IncomingMessage, port: number): boolean {
  const host = req.headers.host?.toLowerCase();
  return !!host && allowedHosts(port).includes(host);
}

/**
 * False when the request says it comes from another origin: an Origin header
 * that is not ours (including "null"), or Sec-Fetch-Site: cross-site. A
 * request with neither is not from a web page (the CLI, an MCP client).
 */
export function originIsOurs(req: IncomingMessage, port: number): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts(port).map((h) => `http://${h}`).includes(origin.toLowerCase())) return false;
  const site = req.headers["sec-fetch-site"];
  return site === undefined || site === "same-origin" || site === "none";
}

export function isStateChanging(method: string | undefined): boolean {
  return method !== "GET" && method !== "HEAD";
}

export function sessionCookieName(port: number): string {
  // Cookies ignore ports: two servers on 127.0.0.1 must not overwrite each other's.
  return `workbench_session_${port}`;
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionCookie(name: string, value: string): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/`;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...BASE_HEADERS, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(text);
}
