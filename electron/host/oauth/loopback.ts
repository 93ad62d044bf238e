/**
 * The redirect of a native app's sign-in (RFC 8252 §7.3): a listener on
 * 127.0.0.1 with a port the OS picks, at `/oauth/callback`. It accepts
 * exactly one request, the one whose `state` matches, answers the browser
 * with the outcome of the sign-in, and closes. A request with another state
 * (a stale tab, a page trying to plant its own code) is refused and changes
 * nothing; the listener keeps waiting until the sign-in times out.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { sameSecret } from "../common/same-secret.ts";

export const CALLBACK_PATH = "/oauth/callback";

export interface CallbackOutcome {
  ok: boolean;
  /** One line for the person, shown on the page the browser lands on. */
  message: string;
}

export interface LoopbackRedirect {
  redirectUri: string;
  /** Resolves with the outcome once the matching request came and was answered; rejects on timeout or close. */
  done: Promise<CallbackOutcome>;
  close(): void;
}

/**
 * Starts the listener. `onCallback` gets the callback's parameters (the code,
 * or the server's error) and says how the sign-in ended; the browser is
 * answered with its words.
 */
export async function startLoopbackRedirect(state: string, onCallback: (params: URLSearchParams) => Promise<CallbackOutcome>, timeoutMs: number): Promise<LoopbackRedirect> {
  const sockets = new Set<Socket>();
  let settle!: { resolve(outcome: CallbackOutcome): void; reject(err: Error): void };
  const done = new Promise<CallbackOutcome>((resolve, reject) => (settle = { resolve, reject }));
  let accepted = false;
  const server = createServer((req, res) => void handle(req, res));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const close = () => {
    clearTimeout(timer);
    server.close();
    for (const socket of sockets) socket.destroy();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) return page(res, 404, "Not found", "This address only receives a sign-in's answer.");
    const given = url.searchParams.get("state") ?? "";
    if (accepted || !sameSecret(given, state)) {
      return page(res, 400, "Not accepted", "This answer does not belong to the sign-in the workbench is waiting for, so nothing was done with it. Start the sign-in again from the workbench if you need to.");
    }
    accepted = true;
    const outcome = await onCallback(url.searchParams).catch((err: unknown): CallbackOutcome => ({ ok: false, message: err instanceof Error ? err.message : "the sign-in failed" }));
    page(res, outcome.ok ? 200 : 400, outcome.ok ? "Signed in" : "Not signed in", `${outcome.message} You can close this tab.`, () => {
      close();
      settle.resolve(outcome);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const timer = setTimeout(() => {
    close();
    settle.reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`));
  }, timeoutMs);
  timer.unref();
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    done,
    close: () => {
      if (!accepted) settle.reject(new Error("the sign-in was cancelled"));
      close();
    },
  };
}

/** A small page for the browser tab the sign-in ends in (no script, nothing loaded from anywhere). */
export function page(res: ServerResponse, status: number, title: string, text: string, after?: () => void): void {
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = `<!doctype html><meta charset="utf-8"><title>${escape(title)} - Codemode Workbench</title><body style="font:16px system-ui;margin:3rem"><h1>${escape(title)}</h1><p>${escape(text)}</p></body>`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    connection: "close",
  });
  res.end(body, after);
}
