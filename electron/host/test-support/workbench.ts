/**
 * A real Workbench on a temp data directory, with a real upstream on loopback
 * registered as API `t` (a small spec of reads, writes and slow reads), for
 * tests of the tools, approvals and replay end to end.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { json, startRecordingServer, type RecordingServer } from "./recording-server.ts";
import { Workbench, type WorkbenchOptions } from "../workbench.ts";

export const TEST_VAULT_KEY = Buffer.alloc(32, 9).toString("base64");

export const ITEMS_SPEC = {
  openapi: "3.0.3",
  info: { title: "Items", version: "1.0" },
  paths: {
    "/items": {
      get: { operationId: "listItems", parameters: [{ name: "tag", in: "query", schema: { type: "string" } }], responses: { "200": { description: "ok" } } },
      post: {
        operationId: "createItem",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } } } },
        responses: { "201": { description: "created" } },
      },
    },
    "/items/{id}": {
      delete: { operationId: "deleteItem", parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }], responses: { "204": { description: "gone" } } },
    },
    "/slow/{ms}": {
      get: { operationId: "slow", parameters: [{ name: "ms", in: "path", required: true, schema: { type: "integer" } }], responses: { "200": { description: "ok" } } },
    },
  },
};

export interface TestBench {
  dataDir: string;
  workbench: Workbench;
  upstream: RecordingServer;
  /** Requests the upstream received for `METHOD /path-prefix`. */
  count(method: string, pathPrefix: string): number;
  close(): Promise<void>;
}

let nextId = 100;

/** Items upstream: GET/POST /items, DELETE /items/{id}, GET /slow/{ms} answers after ms. */
export async function startItemsUpstream(): Promise<RecordingServer> {
  return startRecordingServer(async (req, res) => {
    if (req.path.startsWith("/slow/")) {
      const ms = Number(req.path.split("/")[2]);
      await new Promise((r) => setTimeout(r, ms));
      return json(res, 200, { waited: ms });
    }
    if (req.path === "/items" && req.method === "GET") return json(res, 200, [{ id: 1, name: "a" }]);
    if (req.path === "/items" && req.method === "POST") return json(res, 201, { id: nextId++, ...(JSON.parse(req.text || "{}") as object) });
    if (req.path.startsWith("/items/") && req.method === "DELETE") return void res.writeHead(204).end();
    json(res, 404, { error: "not found" });
  });
}

export async function openTestBench(options: Partial<WorkbenchOptions> = {}, dataDir = mkdtempSync(join(tmpdir(), "wb-test-"))): Promise<TestBench> {
  const upstream = await startItemsUpstream();
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 2, ...options });
  if (!opened.ok) throw new Error(opened.message);
  const workbench = opened.workbench;
  const { result } = workbench.registry.store.ingest(JSON.stringify(ITEMS_SPEC));
  if (!result.ok) throw new Error(result.error.message);
  const registered = workbench.registry.register("t", result.artifact, { baseUrl: upstream.url }, { kind: "text", filename: "items.json" });
  if (!registered.ok) throw new Error(registered.error.message);
  return {
    dataDir,
    workbench,
    upstream,
    count: (method, prefix) => upstream.requests.filter((r) => r.method === method && r.path.startsWith(prefix)).length,
    close: async () => {
      await workbench.close();
      await upstream.close();
    },
  };
}
