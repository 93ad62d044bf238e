import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Ack, ChannelName, ReplyOf, RequestOf } from "../shared/contract.ts";
import { ITEMS_SPEC, openTestBench, type TestBench } from "./host/test-support/workbench.ts";
import { startWorkbenchServer, type WorkbenchServer } from "./serve.ts";
import { lockfilePath, readLock } from "./serve/lockfile.ts";
import { CSP } from "./serve/security.ts";
import { envelopeOf, httpMcpClient } from "./serve/test-support.ts";

let bench: TestBench;
let server: WorkbenchServer;
let cookie: string;

beforeAll(async () => {
  bench = await openTestBench();
  const rendererDir = mkdtempSync(join(tmpdir(), "wb-renderer-"));
  mkdirSync(join(rendererDir, "assets"));
  writeFileSync(join(rendererDir, "index.html"), "<!doctype html><title>Workbench</title><script type=module src=./assets/app.js></script>");
  writeFileSync(join(rendererDir, "assets", "app.js"), "console.log('hi')");
  server = await startWorkbenchServer({ workbench: bench.workbench, kind: "serve", shell: "browser", rendererDir, reusePort: false });
  cookie = await login(server.openUrl.split("#token=")[1]!);
});
afterAll(async () => {
  await server.close();
  await bench.close();
});

/** A raw HTTP request, so tests control Host, Origin and Cookie exactly as an attacker could. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, method, path, headers: { host: `127.0.0.1:${server.port}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function login(token: string): Promise<string> {
  const res = await raw("POST", "/auth/session", { "content-type": "application/json", origin: server.url }, JSON.stringify({ token }));
  expect(res.status).toBe(204);
  const setCookie = String(res.headers["set-cookie"]);
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  expect(setCookie).toMatch(/Path=\//);
  return setCookie.split(";")[0]!;
}

async function bridge<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ReplyOf<C>> {
  const res = await raw("POST", `/api/${channel}`, { "content-type": "application/json", cookie, origin: server.url }, JSON.stringify(request));
  if (res.status !== 200) throw new Error(`${channel}: HTTP ${res.status} ${res.text}`);
  return JSON.parse(res.text) as ReplyOf<C>;
}

function mcpClient(name = "test-agent", token = server.connect.info().token) {
  return httpMcpClient(server.mcpUrl, token, name);
}

describe("workbench serve: security", () => {
  it("serves the renderer with the CSP, nosniff and no CORS headers", async () => {
    const page = await raw("GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toBe(CSP);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    const asset = await raw("GET", "/assets/app.js");
    expect(asset.headers["content-type"]).toMatch(/javascript/);
    expect(asset.text).toBe("console.log('hi')");
    for (const res of [page, asset, await raw("OPTIONS", "/api/apis.list", { origin: "http://evil.example", "access-control-request-method": "POST" })]) {
      expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    }
    expect((await raw("GET", "/../../etc/passwd")).status).toBe(404);
    expect((await raw("GET", "/%2e%2e/%2e%2e/etc/passwd")).status).toBe(404);
  });

  it("answers bridge requests only with the session cookie", async () => {
    expect((await raw("POST", "/api/apis.list", { "content-type": "application/json" }, "{}")).status).toBe(401);
    expect((await raw("POST", "/api/apis.list", { "content-type": "application/json", cookie: `${cookie.split("=")[0]}=forged` }, "{}")).status).toBe(401);
    expect((await raw("GET", "/api/events")).status).toBe(401);
    expect((await raw("POST", "/auth/session", { "content-type": "application/json" }, JSON.stringify({ token: "wrong" }))).status).toBe(401);
    const ok = await raw("POST", "/api/apis.list", { "content-type": "application/json", cookie }, "{}");
    expect(ok.status).toBe(200);
    expect((JSON.parse(ok.text) as { name: string }[]).map((a) => a.name).sort()).toEqual(["petstore", "t"]);
  });

  it("refuses a Host that is not its own (DNS rebinding)", async () => {
    for (const host of ["evil.example", `evil.example:${server.port}`, "127.0.0.1", `127.0.0.1:${server.port + 1}`]) {
      expect((await raw("GET", "/", { host })).status).toBe(403);
      expect((await raw("POST", "/api/apis.list", { host, cookie, "content-type": "application/json" }, "{}")).status).toBe(403);
    }
    expect((await raw("POST", "/api/apis.list", { host: `localhost:${server.port}`, cookie, "content-type": "application/json" }, "{}")).status).toBe(200);
  });

  it("refuses cross-origin requests even with the cookie", async () => {
    const post = (headers: Record<string, string>) => raw("POST", "/api/decisions.list", { "content-type": "application/json", cookie, ...headers }, "{}");
    expect((await post({ origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ origin: "null" })).status).toBe(403);
    expect((await post({ origin: `http://127.0.0.1:${server.port + 1}` })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "same-site" })).status).toBe(403);
    expect((await raw("POST", "/auth/session", { origin: "http://evil.example", "content-type": "application/json" }, JSON.stringify({ token: server.openUrl.split("#token=")[1] }))).status).toBe(403);
    expect((await post({ origin: server.url, "sec-fetch-site": "same-origin" })).status).toBe(200);
    // A form post cannot pass for JSON.
    expect((await raw("POST", "/api/decisions.list", { "content-type": "text/plain", cookie }, "{}")).status).toBe(415);
  });

  it("answers /mcp only with its own bearer token", async () => {
    const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const none = await raw("POST", "/mcp", headers, init);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect((await raw("POST", "/mcp", { ...headers, authorization: "Bearer not-the-token" }, init)).status).toBe(401);
    // The session token of the browser is not the MCP token.
    expect((await raw("POST", "/mcp", { ...headers, authorization: `Bearer ${server.openUrl.split("#token=")[1]}` }, init)).status).toBe(401);
    expect((await raw("POST", "/mcp", { ...headers, cookie }, init)).status).toBe(401);
    expect((await raw("POST", "/mcp", { ...headers, authorization: `Bearer ${server.connect.info().token}`, origin: "http://evil.example" }, init)).status).toBe(403);
  });

  it("keeps an owner-only lockfile with the port, pid and tokens", () => {
    const path = lockfilePath(bench.dataDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readLock(bench.dataDir)).toMatchObject({ kind: "serve", pid: process.pid, port: server.port, url: server.url, mcpToken: server.connect.info().token, sessionToken: server.openUrl.split("#token=")[1] });
    expect(statSync(join(bench.dataDir, "mcp.json")).mode & 0o777).toBe(0o600);
  });

  it("streams bus events to the browser as server-sent events", async () => {
    const received: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port: server.port, path: "/api/events", headers: { host: `127.0.0.1:${server.port}`, cookie } }, (res) => {
        expect(res.headers["content-type"]).toMatch(/text\/event-stream/);
        res.on("data", (chunk: Buffer) => {
          received.push(chunk.toString("utf8"));
          if (received.join("").includes('"type":"run.finished"')) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on("error", (err) => (received.join("").includes("run.finished") ? resolve() : reject(err)));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 50));
    await bridge("runs.execute", { code: "async () => 1", policy: "read_only" });
    await done;
    const events = received.join("").split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)) as { type: string });
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["run.updated", "run.finished"]));
  });
});

describe("MCP over Streamable HTTP", () => {
  it("lists the tools, searches, reads, and refuses a write under the read-only tool", async () => {
    const client = await mcpClient();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_apis", "execute_api_code", "execute_api_mutations", "get_code_run"]);
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
    expect(tools[0]!.description).toContain("- t: Items");

    const found = envelopeOf(await client.callTool({ name: "search_apis", arguments: { code: "async () => specs.t.find('items').map((o) => o.id)" } }));
    expect(found.result).toEqual(expect.arrayContaining(["listItems", "createItem"]));
    const read = envelopeOf(await client.callTool({ name: "execute_api_code", arguments: { code: "async () => (await apis.t.listItems({})).body" } }));
    expect(read).toMatchObject({ status: "completed", result: [{ id: 1, name: "a" }] });
    expect(bench.workbench.store.getRun(read.run)?.source).toEqual({ kind: "mcp", client: "test-agent 1.2.3" });
    const refused = await client.callTool({ name: "execute_api_code", arguments: { code: 'async () => { try { await apis.t.createItem({ body: { name: "x" } }) } catch (e) { return e.name } }' } });
    expect(envelopeOf(refused)).toMatchObject({ status: "completed", result: "CallRejected" });
    const bad = await client.callTool({ name: "execute_api_code", arguments: {} });
    expect(bad.isError).toBe(true);
    await client.close();
  });

  it("answers a write with pending, and notifies the client when a person's approval lets the run finish", async () => {
    const client = await mcpClient("agent-that-writes");
    const logs: unknown[] = [];
    const updated: string[] = [];
    let notified!: () => void;
    const bothNotices = new Promise<void>((resolve) => (notified = resolve));
    const check = () => logs.length > 0 && updated.length > 0 && notified();
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void (logs.push(n.params.data), check()));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void (updated.push(n.params.uri), check()));

    const before = bench.count("POST", "/items");
    const pending = envelopeOf(await client.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => { const r = await apis.t.createItem({ body: { name: "from-agent" } }); return { status: r.status, name: r.body.name } }' } }));
    expect(pending).toMatchObject({ status: "pending", pending: { api: "t", operation: "POST /items", waiting_for: "approval" } });
    expect(bench.count("POST", "/items")).toBe(before);
    const inbox = await bridge("decisions.list", {});
    expect(inbox.find((d) => d.runId === pending.run)?.requestedBy).toEqual({ kind: "mcp", client: "agent-that-writes 1.2.3" });

    const ack: Ack = await bridge("decisions.decide", { runId: pending.run, decision: "approve" });
    expect(ack.ok).toBe(true);
    await bothNotices;
    expect(updated).toEqual([`coderun://${pending.run}`]);
    expect(logs[0]).toMatchObject({ event: "run.finished", run: pending.run, status: "completed", calls: "POST /items 201 (approved)", result: { status: 201, name: "from-agent" } });
    expect(bench.count("POST", "/items")).toBe(before + 1);

    const final = envelopeOf(await client.callTool({ name: "get_code_run", arguments: { run: pending.run } }));
    expect(final).toMatchObject({ run: pending.run, status: "completed", result: { status: 201, name: "from-agent" }, calls: [{ decision: "approved" }] });
    const resource = await client.readResource({ uri: `coderun://${pending.run}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ status: "completed" });
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(`coderun://${pending.run}`);
    expect((await client.callTool({ name: "get_code_run", arguments: { run: "run_nope" } })).isError).toBe(true);
    await client.close();
  });

  it("tells clients the tool list changed when an API is added, and lists it", async () => {
    const client = await mcpClient();
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const spec = JSON.stringify({ ...ITEMS_SPEC, info: { title: "Second Items", version: "1" }, servers: [{ url: bench.upstream.url }] });
    expect(await bridge("apis.add", { name: "second", source: { kind: "text", text: spec } })).toMatchObject({ ok: true });
    await changed;
    const { tools } = await client.listTools();
    expect(tools[1]!.description).toContain("- second: Second Items");
    await bridge("apis.remove", { name: "second" });
    await client.close();
  });

  it("rotating the token shuts out the old one at once", async () => {
    const old = server.connect.info().token;
    const client = await mcpClient("before-rotation", old);
    const rotated = await bridge("connect.rotate", {});
    expect(rotated.token).not.toBe(old);
    expect(readLock(bench.dataDir)?.mcpToken).toBe(rotated.token);
    await expect(client.listTools()).rejects.toThrow();
    await expect(mcpClient("old-token", old)).rejects.toThrow(/401|nauthorized/);
    const fresh = await mcpClient("after-rotation", rotated.token);
    expect((await fresh.listTools()).tools).toHaveLength(4);
    await fresh.close();
    await client.close().catch(() => {});
  });
});

describe("workbench serve: lifecycle", () => {
  it("removes its lockfile when it stops, and says so when the renderer is not built", async () => {
    const other = await openTestBench();
    const empty = mkdtempSync(join(tmpdir(), "wb-nothing-"));
    const s = await startWorkbenchServer({ workbench: other.workbench, kind: "serve", shell: "browser", rendererDir: empty, reusePort: false });
    expect(s.rendererBuilt).toBe(false);
    const page = await fetch(`${s.url}/`);
    expect(page.status).toBe(503);
    expect(await page.text()).toMatch(/npm run build/);
    expect(existsSync(lockfilePath(other.dataDir))).toBe(true);
    await s.close();
    expect(existsSync(lockfilePath(other.dataDir))).toBe(false);
    // The MCP token survives a restart, so agent configs keep working.
    const token = JSON.parse(readFileSync(join(other.dataDir, "mcp.json"), "utf8")).token;
    const again = await startWorkbenchServer({ workbench: other.workbench, kind: "serve", shell: "browser", rendererDir: empty, reusePort: false });
    expect(again.connect.info().token).toBe(token);
    await again.close();
    await other.close();
  });
});
