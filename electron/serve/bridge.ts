/**
 * The HTTP bridge of `workbench serve`: the shared/contract channels as
 * `POST /api/<channel>` (JSON in, JSON out; failures are 4xx/5xx with a
 * ChannelError body), the event bus as server-sent events at
 * `GET /api/events`, and `POST /auth/session`, which trades the printed token
 * for the session cookie every bridge request needs.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import type { ChannelError } from "../../shared/contract.ts";
import type { EventBus } from "../host/events.ts";
import { dispatchChannel, type Caller, type ChannelHandlers } from "../host/handlers/index.ts";
import { sameSecret } from "../host/common/same-secret.ts";
import { BASE_HEADERS, readCookie, sendJson, sessionCookie, sessionCookieName } from "./security.ts";

/** Specs may be pasted whole (the contract allows 60 MB of text). */
const MAX_BRIDGE_BODY = 64 * 1024 * 1024;
const MAX_SESSIONS = 256;
const HEARTBEAT_MS = 20_000;
/** Lets the CLI say it is the CLI, so decisions it makes are recorded as such. */
export const CLIENT_HEADER = "x-workbench-client";

export class BrowserSessions {
  readonly cookieName: string;
  readonly #token: string;
  readonly #valid = new Set<string>();

  constructor(port: number, token: string) {
    this.cookieName = sessionCookieName(port);
    this.#token = token;
  }

  /** A new cookie value for the right token; undefined otherwise. */
  exchange(token: unknown): string | undefined {
    if (typeof token !== "string" || !sameSecret(token, this.#token)) return undefined;
    const value = randomBytes(32).toString("base64url");
    this.#valid.add(value);
    // Sets iterate in insertion order: drop the oldest sessions first.
    for (const old of this.#valid) {
      if (this.#valid.size <= MAX_SESSIONS) break;
      this.#valid.delete(old);
    }
    return value;
  }

  has(req: IncomingMessage): boolean {
    const value = readCookie(req, this.cookieName);
    return value !== undefined && this.#valid.has(value);
  }
}

export interface BridgeDeps {
  handlers: ChannelHandlers;
  sessions: BrowserSessions;
  bus: EventBus;
  log: (message: string) => void;
}

export async function handleSessionExchange(req: IncomingMessage, res: ServerResponse, sessions: BrowserSessions): Promise<void> {
  if (req.method !== "POST") return sendJson(res, 405, { error: "POST the token as JSON: {\"token\": \"...\"}" });
  const body = await readBody(req, 64 * 1024);
  const token = body.ok ? parseJson(body.text)?.value : undefined;
  const cookie = sessions.exchange(token && typeof token === "object" ? (token as { token?: unknown }).token : undefined);
  if (!cookie) return sendJson(res, 401, { error: "wrong token: open the URL printed by workbench serve" });
  res.writeHead(204, { ...BASE_HEADERS, "set-cookie": sessionCookie(sessions.cookieName, cookie), "cache-control": "no-store" });
  res.end();
}

export async function handleChannel(req: IncomingMessage, res: ServerResponse, channel: string, deps: BridgeDeps): Promise<void> {
  if (req.method !== "POST") return sendJson(res, 405, channelError("invalid-request", `call ${channel} with POST and a JSON body`));
  if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) return sendJson(res, 415, channelError("invalid-request", "the body must be JSON (Content-Type: application/json)"));
  const body = await readBody(req, MAX_BRIDGE_BODY);
  if (!body.ok) return sendJson(res, 413, channelError("invalid-request", `the request is larger than ${MAX_BRIDGE_BODY / 1024 / 1024} MB`));
  const parsed = body.text.trim() ? parseJson(body.text) : { value: {} };
  if (!parsed) return sendJson(res, 400, channelError("invalid-request", `${channel}: the body is not JSON`));
  const caller: Caller = { actor: req.headers[CLIENT_HEADER] === "cli" ? "cli" : "ui" };
  const out = await dispatchChannel(deps.handlers, channel, parsed.value, caller, deps.log);
  if (out.ok) return sendJson(res, 200, out.reply ?? null);
  const status = out.error.error.code === "invalid-request" ? 400 : out.error.error.code === "not-found" ? 404 : 500;
  sendJson(res, status, out.error);
}

/** Server-sent events: one `data:` line of JSON per bus event, and a comment now and then to keep proxies from closing it. */
export function handleEvents(req: IncomingMessage, res: ServerResponse, bus: EventBus, open: Set<ServerResponse>): void {
  if (req.method !== "GET") return sendJson(res, 405, { error: "GET this stream" });
  res.writeHead(200, { ...BASE_HEADERS, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });
  res.write("retry: 2000\n\n");
  const off = bus.subscribe((event) => res.write(`data: ${JSON.stringify(event)}\n\n`));
  const heartbeat = setInterval(() => res.write(": keep-alive\n\n"), HEARTBEAT_MS);
  heartbeat.unref();
  open.add(res);
  const stop = () => {
    off();
    clearInterval(heartbeat);
    open.delete(res);
  };
  req.on("close", stop);
  res.on("close", stop);
}

function channelError(code: ChannelError["error"]["code"], message: string): ChannelError {
  return { error: { code, message } };
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage, limit: number): Promise<{ ok: true; text: string } | { ok: false }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return { ok: false };
    chunks.push(chunk as Buffer);
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}
