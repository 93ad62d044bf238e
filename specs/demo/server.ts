/**
 * The demo upstream: a real HTTP server implementing petstore.yaml on
 * 127.0.0.1, with in-memory state (store.ts). The workbench starts one per
 * process so a new user can try everything offline; tests use it as a real
 * upstream. Runnable alone: `node specs/demo/server.ts [--port N] [--token T]`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DemoError, parseId, PetStore } from "./store.ts";

export const DEFAULT_DEMO_TOKEN = "demo-token";
/** Request bodies larger than this are refused: the demo never needs more. */
const MAX_BODY_BYTES = 64 * 1024;

export interface DemoServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The bearer token writes need (default "demo-token"). */
  token?: string;
  now?: () => Date;
}

export interface DemoServer {
  url: string;
  close(): Promise<void>;
}

type Route = (ctx: { req: IncomingMessage; query: URLSearchParams; params: string[]; body: () => Promise<unknown> }) => Promise<[number, unknown]> | [number, unknown];

export async function startDemoServer(opts: DemoServerOptions = {}): Promise<DemoServer> {
  const store = new PetStore(opts.now);
  const token = opts.token ?? DEFAULT_DEMO_TOKEN;
  const routes: { pattern: RegExp; methods: Record<string, Route>; writes: string[] }[] = [
    {
      pattern: /^\/pets$/,
      methods: { GET: ({ query }) => [200, store.listPets(query)], POST: async ({ body }) => [201, store.createPet(await body())] },
      writes: ["POST"],
    },
    { pattern: /^\/pets\/findByStatus$/, methods: { GET: ({ query }) => [200, store.findByStatus(query)] }, writes: [] },
    {
      pattern: /^\/pets\/([^/]+)$/,
      methods: {
        GET: ({ params }) => [200, store.getPet(parseId(params[0]!, "petId"))],
        PATCH: async ({ params, body }) => [200, store.updatePet(parseId(params[0]!, "petId"), await body())],
        DELETE: ({ params }) => (store.deletePet(parseId(params[0]!, "petId")), [204, undefined]),
      },
      writes: ["PATCH", "DELETE"],
    },
    { pattern: /^\/store\/inventory$/, methods: { GET: () => [200, store.inventory()] }, writes: [] },
    { pattern: /^\/store\/orders$/, methods: { POST: async ({ body }) => [201, store.placeOrder(await body())] }, writes: ["POST"] },
    {
      pattern: /^\/store\/orders\/([^/]+)$/,
      methods: {
        GET: ({ params }) => [200, store.getOrder(parseId(params[0]!, "orderId"))],
        DELETE: ({ params }) => (store.cancelOrder(parseId(params[0]!, "orderId")), [204, undefined]),
      },
      writes: ["DELETE"],
    },
  ];

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      const error = err instanceof DemoError ? err : new DemoError(500, "internal_error", "the demo server failed to handle this request");
      if (!res.headersSent) send(res, error.status, { code: error.code, message: error.message }, error.status === 401 ? { "www-authenticate": 'Bearer realm="demo"' } : {});
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://demo.invalid");
    const method = req.method ?? "GET";
    const route = routes.find((r) => r.pattern.test(url.pathname));
    if (!route) throw new DemoError(404, "not_found", `no route for ${url.pathname}`);
    const handler = route.methods[method];
    if (!handler) {
      res.setHeader("allow", Object.keys(route.methods).join(", "));
      throw new DemoError(405, "method_not_allowed", `${method} is not allowed on ${url.pathname}`);
    }
    if (route.writes.includes(method) && req.headers.authorization !== `Bearer ${token}`) {
      throw new DemoError(401, "unauthorized", req.headers.authorization ? "the bearer token is not valid" : "writes need an Authorization: Bearer token");
    }
    const params = route.pattern.exec(url.pathname)!.slice(1).map(decodeSegment);
    const [status, payload] = await handler({ req, query: url.searchParams, params, body: () => readJsonBody(req) });
    send(res, status, payload);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new DemoError(400, "bad_request", `the path segment ${JSON.stringify(segment)} is not valid percent-encoding`);
  }
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new DemoError(415, "unsupported_media_type", "send the body as application/json");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new DemoError(413, "too_large", `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new DemoError(400, "bad_request", "the body is not valid JSON");
  }
}

function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (payload === undefined) {
    res.writeHead(status).end();
    return;
  }
  const body = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

// `node specs/demo/server.ts`. Bundles define import.meta.main as false: an inlined module is never the script that was run.
if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const port = Number(arg("--port") ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write("usage: node specs/demo/server.ts [--port N] [--token TOKEN]\n");
    process.exit(2);
  }
  const server = await startDemoServer({ port, token: arg("--token") ?? DEFAULT_DEMO_TOKEN });
  process.stdout.write(`demo pet store listening on ${server.url} (writes need "Authorization: Bearer ${arg("--token") ?? DEFAULT_DEMO_TOKEN}")\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
