/**
 * A real HTTP server on loopback that records every request it receives, for
 * tests that must see what actually went over the wire (credentials placed
 * right, writes sent exactly once, nothing sent at all).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ReceivedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  at: number;
}

export type Handler = (req: ReceivedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface RecordingServer {
  url: string;
  origin: string;
  requests: ReceivedRequest[];
  /** Requests currently being handled (for concurrency checks). */
  inFlight(): number;
  maxInFlight(): number;
  setHandler(handler: Handler): void;
  close(): Promise<void>;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Echoes what it received: method, path, query, headers and body. */
export const echoHandler: Handler = (req, res) => {
  json(res, 200, { method: req.method, path: req.path, query: Object.fromEntries(req.query), headers: req.headers, body: req.text });
};

export async function startRecordingServer(handler: Handler = echoHandler): Promise<RecordingServer> {
  const requests: ReceivedRequest[] = [];
  let current = handler;
  let active = 0;
  let peak = 0;
  const sockets = new Set<Socket>();
  const server = createServer(async (raw, res) => {
    active++;
    peak = Math.max(peak, active);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of raw) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const url = new URL(raw.url ?? "/", "http://127.0.0.1");
      const received: ReceivedRequest = { method: raw.method ?? "GET", url: raw.url ?? "/", path: url.pathname, query: url.searchParams, headers: raw.headers, body, text: body.toString("utf8"), at: Date.now() };
      requests.push(received);
      await current(received, res, raw);
    } catch (err) {
      if (!res.headersSent) json(res, 500, { error: String(err) });
    } finally {
      active--;
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    origin,
    requests,
    inFlight: () => active,
    maxInFlight: () => peak,
    setHandler: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
