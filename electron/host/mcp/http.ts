/**
 * MCP over Streamable HTTP at `/mcp`: stateful sessions (one MCP session and
 * SDK transport per client, keyed by `Mcp-Session-Id`) so that notifications
 * reach the client that started a run, behind the endpoint's own bearer
 * token. The loopback server in front has already checked Host and Origin.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { parseToolRoles } from "../tools/definitions.ts";
import type { Workbench } from "../workbench.ts";
import { createMcpSession, type McpSession, type McpSessionOptions } from "./session.ts";
import { sameSecret } from "../common/same-secret.ts";

/**
 * A client may narrow the tools of its session (never widen them): `workbench
 * mcp --tools` relays through this header, so a read-only agent relayed to a
 * running app still gets no mutation tool.
 */
export const TOOLS_HEADER = "x-workbench-tools";

/** Sessions kept at most; the least recently used one is closed beyond this (clients that vanished never say goodbye). */
const MAX_SESSIONS = 64;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

interface Live {
  transport: StreamableHTTPServerTransport;
  session: McpSession;
  lastSeen: number;
}

export interface McpHttpOptions extends McpSessionOptions {
  workbench: Workbench;
  /** The token requests must carry, read on every request (rotation takes effect at once). */
  token: () => string;
}

export class McpHttpEndpoint {
  readonly #o: McpHttpOptions;
  readonly #sessions = new Map<string, Live>();

  constructor(options: McpHttpOptions) {
    this.#o = options;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.#authorized(req)) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="codemode-workbench"' });
      res.end(JSON.stringify({ error: "unauthorized", message: "send the workbench's MCP token as Authorization: Bearer <token> (shown in the app under Connect, or printed by workbench serve)" }));
      return;
    }
    const sessionId = header(req, "mcp-session-id");
    if (sessionId) {
      const live = this.#sessions.get(sessionId);
      if (!live) return jsonRpcError(res, 404, -32001, "Session not found: start a new one with initialize");
      live.lastSeen = Date.now();
      const body = req.method === "POST" ? await readJson(req, res) : undefined;
      if (body === INVALID) return;
      await live.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== "POST") return jsonRpcError(res, 400, -32000, "Bad Request: no Mcp-Session-Id; start a session with a POST of initialize");
    const body = await readJson(req, res);
    if (body === INVALID) return;
    if (!isInitializeRequest(body)) return jsonRpcError(res, 400, -32000, "Bad Request: no Mcp-Session-Id; the first request of a session is initialize");
    const asked = header(req, TOOLS_HEADER);
    const narrowed = asked === undefined ? undefined : parseToolRoles(asked);
    if (narrowed && !narrowed.ok) return jsonRpcError(res, 400, -32602, `${TOOLS_HEADER}: ${narrowed.message}`);
    const tools = narrowed ? narrowed.roles.filter((role) => !this.#o.tools || this.#o.tools.includes(role)) : this.#o.tools;
    await this.#start(req, res, body, tools);
  }

  /** Closes every session (after the token is rotated, or when the server stops). */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => this.#closeLive(s)));
  }

  async #start(req: IncomingMessage, res: ServerResponse, body: unknown, tools: McpSessionOptions["tools"]): Promise<void> {
    const { workbench, token: _token, ...sessionOptions } = this.#o;
    const session = createMcpSession(workbench, { ...sessionOptions, ...(tools ? { tools } : {}) });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, session, lastSeen: Date.now() });
        this.#evict();
      },
      onsessionclosed: (id) => {
        const live = this.#sessions.get(id);
        this.#sessions.delete(id);
        if (live) void live.session.close();
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
      void session.close();
    };
    await session.server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  #evict(): void {
    while (this.#sessions.size > MAX_SESSIONS) {
      const [oldestId, oldest] = [...this.#sessions.entries()].reduce((a, b) => (b[1].lastSeen < a[1].lastSeen ? b : a));
      this.#sessions.delete(oldestId);
      this.#o.log?.(`mcp: closed idle session ${oldestId.slice(0, 8)} (more than ${MAX_SESSIONS} sessions)`);
      void this.#closeLive(oldest);
    }
  }

  async #closeLive(live: Live): Promise<void> {
    await live.session.close();
    await live.transport.close().catch(() => {});
  }

  #authorized(req: IncomingMessage): boolean {
    const value = header(req, "authorization");
    const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
    return !!match && sameSecret(match[1]!, this.#o.token());
  }
}

const INVALID = Symbol("invalid body");

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      jsonRpcError(res, 413, -32600, `the request is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
      return INVALID;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    jsonRpcError(res, 400, -32700, "Parse error: the body is not JSON");
    return INVALID;
  }
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
