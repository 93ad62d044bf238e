/**
 * The workbench's loopback server: one HTTP server on 127.0.0.1 that serves
 * the built renderer to a browser tab, the HTTP bridge (the shared/contract
 * channels and the event stream), and MCP over Streamable HTTP at `/mcp`.
 * `workbench serve` runs it over a Workbench; the Electron app runs it for
 * `/mcp` and the CLI; a headless `workbench mcp` runs it so that
 * `workbench approve` can reach the process that owns its runs.
 *
 * Guards (see electron/serve/security.ts and docs/serve-security.md): Host
 * must be this server, a foreign Origin is refused, the bridge needs the
 * session cookie, `/mcp` its bearer token, and no CORS header is ever sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connectInfo } from "./host/handlers/connect.ts";
import { createHandlers, type ChannelHandlers, type ConnectProvider } from "./host/handlers/index.ts";
import { McpHttpEndpoint } from "./host/mcp/http.ts";
import { CALLBACK_PATH, page } from "./host/oauth/loopback.ts";
import type { McpSessionOptions } from "./host/mcp/session.ts";
import { McpTokenStore, newToken } from "./host/mcp/token.ts";
import type { Workbench } from "./host/workbench.ts";
import { BrowserSessions, handleChannel, handleEvents, handleSessionExchange } from "./serve/bridge.ts";
import { liveLock, lockAnswers, removeLock, writeLock, type ServeLock } from "./serve/lockfile.ts";
import { hostIsOurs, originIsOurs, sendJson, sendText } from "./serve/security.ts";
import { DEFAULT_RENDERER_DIR, rendererIsBuilt, serveRenderer } from "./serve/static.ts";

export interface WorkbenchServerOptions extends Pick<McpSessionOptions, "toolNames" | "tools" | "version"> {
  workbench: Workbench;
  kind: ServeLock["kind"];
  shell: "electron" | "browser";
  /** A port that must be used; otherwise the port last served on if free, else any free port. */
  port?: number;
  /** Try the port this data directory was last served on (so agent configs keep working). Default true. */
  reusePort?: boolean;
  /** Where the built renderer is; false serves none (the Electron window loads its files itself). */
  rendererDir?: string | false;
  log?: (message: string) => void;
}

export interface WorkbenchServer {
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** The URL a person opens: the session token rides in the fragment, which browsers never send. */
  openUrl: string;
  mcpUrl: string;
  /** False when another live instance holds the lockfile (a headless `workbench mcp` beside the app). */
  ownsLock: boolean;
  rendererBuilt: boolean;
  /** The channel handlers its bridge serves. */
  handlers: ChannelHandlers;
  /** The MCP endpoint's details; rotating closes the sessions that used the old token. */
  connect: ConnectProvider;
  close(): Promise<void>;
}

/** Another instance already serves this data directory. */
export class AlreadyServing extends Error {
  readonly lock: ServeLock;
  constructor(lock: ServeLock) {
    super(`the workbench for this data directory is already running (${lock.kind}, pid ${lock.pid}) at ${lock.url}`);
    this.name = "AlreadyServing";
    this.lock = lock;
  }
}

export async function startWorkbenchServer(options: WorkbenchServerOptions): Promise<WorkbenchServer> {
  const { workbench, kind } = options;
  const dataDir = workbench.dataDir;
  const log = options.log ?? (() => {});
  const found = liveLock(dataDir);
  const holder = found && found.pid !== process.pid && (await lockAnswers(found)) ? found : undefined;
  // A second app or serve would leave the CLI guessing which one to talk to; a headless `workbench mcp` yields its lock to them.
  if (holder && holder.kind !== "mcp" && kind !== "mcp") throw new AlreadyServing(holder);
  const takeLock = !holder || (holder.kind === "mcp" && kind !== "mcp");

  const tokens = new McpTokenStore(dataDir);
  if (tokens.notice) log(`note: ${tokens.notice}`);
  const server = createServer();
  const port = await listen(server, options.port, options.reusePort === false ? undefined : tokens.lastPort());
  const url = `http://127.0.0.1:${port}`;
  const mcpUrl = `${url}/mcp`;
  const sessionToken = newToken();
  const sessions = new BrowserSessions(port, sessionToken);
  const startedAt = new Date().toISOString();
  const lock = (): ServeLock => ({ format: 1, kind, pid: process.pid, port, url, sessionToken, mcpToken: tokens.current(), startedAt });

  const mcp = new McpHttpEndpoint({
    workbench,
    token: () => tokens.current(),
    log,
    ...(options.toolNames ? { toolNames: options.toolNames } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.version ? { version: options.version } : {}),
  });
  const connect: ConnectProvider = {
    info: () => connectInfo(mcpUrl, tokens.current(), dataDir),
    rotate: async () => {
      tokens.rotate();
      if (takeLock) writeLock(dataDir, lock());
      // Sessions opened with the old token end now, not at their next request.
      await mcp.closeAll();
      return connect.info();
    },
  };
  const handlers = createHandlers({ workbench, shell: options.shell, log, connect });

  const rendererDir = options.rendererDir === false ? undefined : (options.rendererDir ?? DEFAULT_RENDERER_DIR);
  const streams = new Set<ServerResponse>();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((err: unknown) => {
      log(`serve: ${req.method} ${req.url?.split("?")[0]} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { error: { code: "failed", message: "the workbench failed to answer (the details are in its log)" } });
      else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostIsOurs(req, port)) return sendText(res, 403, `forbidden: this server answers only to 127.0.0.1:${port} and localhost:${port}`);
    // A sign-in's redirect arrives from the authorization server's site by design: it is bound by its one-time `state`, not by origin or cookie.
    if (req.method === "GET" && new URL(req.url ?? "/", url).pathname === CALLBACK_PATH) return handleSignInRedirect(req, res);
    if (!originIsOurs(req, port)) return sendText(res, 403, "forbidden: cross-origin requests are not accepted");
    const path = new URL(req.url ?? "/", url).pathname;
    if (path === "/mcp") return mcp.handle(req, res);
    if (path === "/auth/session") return handleSessionExchange(req, res, sessions);
    if (path === "/api" || path.startsWith("/api/")) {
      if (!sessions.has(req)) return sendJson(res, 401, { error: { code: "failed", message: "no session: open the URL printed by workbench serve (it carries the token)" } });
      if (path === "/api/events") return handleEvents(req, res, workbench.bus, streams);
      return handleChannel(req, res, decodeURIComponent(path.slice("/api/".length)), { handlers, sessions, bus: workbench.bus, log });
    }
    if (rendererDir) return serveRenderer(req, res, rendererDir);
    return sendText(res, 404, "not found");
  }

  async function handleSignInRedirect(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const outcome = await workbench.signIns.completeHosted(new URL(req.url ?? "/", url).searchParams);
    page(res, outcome.status, outcome.ok ? "Signed in" : "Not signed in", `${outcome.message} You can close this tab.`);
  }

  if (takeLock) writeLock(dataDir, lock());
  if (kind !== "mcp") tokens.rememberPort(port);
  // Sign-ins started in this process (the UI's Sign in) come back here instead of to a listener of their own.
  workbench.signIns.useHostedRedirect(`${url}${CALLBACK_PATH}`);
  workbench.startBackgroundWork();

  let closing: Promise<void> | undefined;
  return {
    port,
    url,
    openUrl: `${url}/#token=${sessionToken}`,
    mcpUrl,
    ownsLock: takeLock,
    rendererBuilt: rendererDir ? rendererIsBuilt(rendererDir) : false,
    handlers,
    connect,
    close: () =>
      (closing ??= (async () => {
        if (takeLock) removeLock(dataDir, { pid: process.pid, sessionToken });
        workbench.signIns.useHostedRedirect(undefined);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await mcp.closeAll();
        for (const stream of streams) stream.end();
        server.closeAllConnections();
        await stopped;
      })()),
  };
}

/** Listens on 127.0.0.1: the port asked for (or fails), else the preferred one if free, else any. */
async function listen(server: Server, required: number | undefined, preferred: number | undefined): Promise<number> {
  const attempt = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (err: Error) => {
        server.off("listening", onListening);
        reject(err);
      };
      const onListening = () => {
        server.off("error", onError);
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : port);
      };
      server.once("error", onError);
      server.once("listening", onListening);
      server.listen(port, "127.0.0.1");
    });
  if (required !== undefined) {
    try {
      return await attempt(required);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(code === "EADDRINUSE" ? `port ${required} is in use on 127.0.0.1; pick another with --port, or leave it out for a free one` : `cannot listen on 127.0.0.1:${required}: ${code ?? String(err)}`, { cause: err });
    }
  }
  if (preferred !== undefined) {
    try {
      return await attempt(preferred);
    } catch {
      // Taken since last time: any free port will do.
    }
  }
  return attempt(0);
}
