import { statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNELS, type ChannelName, type ReplyOf, type RequestOf } from "../../../shared/contract.ts";
import type { WorkbenchEvent } from "../../../shared/events.ts";
import { ITEMS_SPEC, openTestBench, type TestBench } from "../test-support/workbench.ts";
import { connectInfo } from "./connect.ts";
import { createHandlers, dispatchChannel, type ChannelHandlers } from "./index.ts";
import { suggestApiName } from "./apis.ts";

let bench: TestBench;
let handlers: ChannelHandlers;

beforeAll(async () => {
  bench = await openTestBench();
  let token = "tok-1";
  handlers = createHandlers({
    workbench: bench.workbench,
    shell: "browser",
    connect: {
      info: () => connectInfo("http://127.0.0.1:1234/mcp", token, bench.dataDir),
      rotate: async () => {
        token = "tok-2";
        return connectInfo("http://127.0.0.1:1234/mcp", token, bench.dataDir);
      },
    },
  });
});
afterAll(async () => bench.close());

async function call<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ReplyOf<C>> {
  const out = await dispatchChannel(handlers, channel, request, { actor: "ui" });
  if (!out.ok) throw new Error(`${channel}: ${out.error.error.code}: ${out.error.error.message}`);
  return out.reply as ReplyOf<C>;
}

describe("channel handlers", () => {
  it("has a handler for every channel of the contract", () => {
    expect(Object.keys(handlers).sort()).toEqual([...CHANNELS].sort());
  });

  it("parses every request with the channel's schema and answers errors as data", async () => {
    expect(await dispatchChannel(handlers, "apis.operations", { api: "t", extra: 1 }, { actor: "ui" })).toEqual({
      ok: false,
      error: { error: { code: "invalid-request", message: 'apis.operations: unknown field "extra"' } },
    });
    const wrongType = await dispatchChannel(handlers, "runs.get", { id: "nope" }, { actor: "ui" });
    expect(wrongType.ok ? undefined : wrongType.error.error.code).toBe("invalid-request");
    const unknown = await dispatchChannel(handlers, "apis.explode", {}, { actor: "ui" });
    expect(unknown.ok ? undefined : unknown.error.error.code).toBe("not-found");
    const missing = await dispatchChannel(handlers, "apis.operations", { api: "nosuch" }, { actor: "ui" });
    expect(missing).toEqual({ ok: false, error: { error: { code: "not-found", message: 'no API named "nosuch" is registered' } } });
  });

  it("lists APIs and their operations, one operation, a schema and warnings", async () => {
    const apis = await call("apis.list", {});
    expect(apis.map((a) => a.name).sort()).toEqual(["petstore", "t"]);
    const t = apis.find((a) => a.name === "t")!;
    expect(t).toMatchObject({ title: "Items", operationCount: 4, baseUrl: bench.upstream.url, source: { kind: "text", location: "items.json" } });
    expect(apis.find((a) => a.name === "petstore")!.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    const rows = await call("apis.operations", { api: "t" });
    expect(rows.map((r) => `${r.method} ${r.path} ${r.id}`)).toContain("post /items createItem");
    expect((await call("apis.operation", { api: "t", id: "createItem" })).requestBody?.required).toBe(true);
    await expect(call("apis.operation", { api: "t", id: "nope" })).rejects.toThrow(/not-found: t has no operation "nope"/);
    expect(await call("apis.schema", { api: "t", name: "Nope" })).toBeNull();
    expect(Object.keys((await call("apis.schema", { api: "petstore", name: "Pet" }))!)).toContain("properties");
    expect(Array.isArray(await call("apis.warnings", { api: "t" }))).toBe(true);
  });

  it("previews a spec without registering it, with its repairs and a name that will be accepted", async () => {
    const spec = { ...ITEMS_SPEC, info: { title: "Items", version: "2" }, paths: { "/x": { get: { operationId: "read-x", responses: { "200": { description: "ok" } } } } } };
    const preview = await call("apis.preview", { source: { kind: "text", text: JSON.stringify(spec), filename: "x.json" } });
    expect(preview).toMatchObject({ ok: true, title: "Items", operations: 1, suggestedName: "items", securitySchemes: [] });
    expect(preview.warnings.map((w) => w.code)).toContain("sanitized-operation-id");
    expect((await call("apis.list", {})).map((a) => a.name)).not.toContain("items");
    const broken = await call("apis.preview", { source: { kind: "text", text: "openapi: [" } });
    expect(broken.ok).toBe(false);
    expect(broken.error?.message).toBeTruthy();
    const unreachable = await call("apis.preview", { source: { kind: "url", url: "http://127.0.0.1:1/spec.json" } });
    expect(unreachable).toMatchObject({ ok: false, error: { code: "fetch-failed" } });
  });

  it("suggests identifiers that are not reserved or taken", () => {
    expect(suggestApiName("Swagger Petstore", "x", new Set())).toBe("swaggerPetstore");
    expect(suggestApiName("", "https://api.github.com/openapi.json", new Set())).toBe("apiGithubCom");
    expect(suggestApiName("Items", "x", new Set(["items", "items2"]))).toBe("items3");
    expect(suggestApiName("Console", "x", new Set())).toBe("consoleApi");
    expect(suggestApiName("2048 game", "x", new Set())).toBe("api2048Game");
  });

  it("adds, reconfigures and removes an API, announcing each change", async () => {
    const events: WorkbenchEvent[] = [];
    const off = bench.workbench.bus.subscribe((e) => events.push(e));
    const spec = JSON.stringify({ ...ITEMS_SPEC, servers: [{ url: bench.upstream.url }] });
    expect(await call("apis.add", { name: "bad-name", source: { kind: "text", text: spec } })).toMatchObject({ ok: false });
    expect(await call("apis.add", { name: "extra", source: { kind: "text", text: spec } })).toEqual({ ok: true, message: "added extra: 4 operations" });
    expect(await call("apis.add", { name: "extra", source: { kind: "text", text: spec } })).toMatchObject({ ok: false, message: expect.stringContaining("already registered") });
    expect(await call("apis.update", { name: "extra", config: { baseUrl: "http://127.0.0.1:9/v2", timeoutMs: 1000 } })).toMatchObject({ ok: true });
    expect((await call("apis.list", {})).find((a) => a.name === "extra")?.baseUrl).toBe("http://127.0.0.1:9/v2");
    expect(await call("apis.remove", { name: "extra" })).toMatchObject({ ok: true });
    expect(await call("apis.remove", { name: "extra" })).toMatchObject({ ok: false });
    off();
    expect(events.filter((e) => e.type === "apis.changed")).toHaveLength(3);
  });

  it("declares every API for the editor in a .d.ts that type-checks a program using it", async () => {
    await call("vault.set", { item: "svc", field: "api-key", value: "very-secret-value", allowApis: ["t"] });
    const { dts } = await call("apis.declarations", {});
    expect(dts).toContain("declare const apis: {");
    expect(dts).toContain("declare namespace petstore {");
    expect(dts).not.toContain("very-secret-value");
    const good = `async function main() {
  const made = await apis.t.createItem({ body: { name: "x" } });
  const pets = await apis.petstore.listPets();
  const n: number = made.status;
  console.log(n, vault.svc["api-key"].length, pets.headers["content-type"]);
  const byName = await apis.call("t.listItems", { tag: "x" });
  console.log(byName.status);
  return apis.t.request({ method: "GET", path: "/items" });
}`;
    expect(typeErrors(dts, good)).toEqual([]);
    const bad = `async function main() { await apis.t.createItem({ body: { nam: "x" } }); await apis.t.deleteItem({}); await apis.nope.x(); await apis.call("listItems"); }`;
    const errors = typeErrors(dts, bad);
    expect(errors.join("\n")).toMatch(/nam/);
    expect(errors.join("\n")).toMatch(/'id' is missing/);
    expect(errors.join("\n")).toMatch(/nope/);
    expect(errors.join("\n")).toMatch(/"listItems"' is not assignable to parameter of type '`\$\{string\}\.\$\{string\}`'/);
    // Cached until something changes.
    expect((await call("apis.declarations", {})).dts).toBe(dts);
  });

  it("runs programs for the UI: a read completes, a write waits, a decision continues it", async () => {
    const read = await call("runs.execute", { code: "async () => (await apis.t.listItems({})).body", policy: "read_only" });
    expect(read).toMatchObject({ status: "completed", result: [{ id: 1, name: "a" }] });
    expect(bench.workbench.store.getRun(read.run)?.source).toEqual({ kind: "ui" });

    const write = await call("runs.execute", { code: 'async () => (await apis.t.createItem({ body: { name: "w" } })).status', policy: "all" });
    expect(write.status).toBe("pending");
    expect((await call("decisions.list", {})).map((d) => d.runId)).toContain(write.run);
    const detail = await call("runs.get", { id: write.run });
    expect(detail?.pending?.operation).toBe("POST /items");
    expect(await call("runs.get", { id: "run_nothing" })).toBeNull();

    const finished = bench.workbench.bus.next((e): e is Extract<WorkbenchEvent, { type: "run.finished" }> => e.type === "run.finished" && e.runId === write.run);
    const ack = await call("decisions.decide", { runId: write.run, decision: "approve" });
    // The write began a plan (of one write): the decision covers the plan.
    expect(ack).toEqual({ ok: true, message: `plan of 1 write approved; run ${write.run} continues` });
    expect((await finished).envelope).toMatchObject({ status: "completed", result: 201 });
    expect(bench.workbench.store.getCalls(write.run)[0]).toMatchObject({ decision: "approved", decidedBy: "ui" });
    expect(await call("decisions.decide", { runId: write.run, decision: "deny" })).toMatchObject({ ok: false, message: expect.stringContaining("not waiting") });

    const listed = await call("runs.list", { source: "ui", limit: 10 });
    expect(listed.map((r) => r.id)).toEqual(expect.arrayContaining([read.run, write.run]));
    const json = await call("runs.export", { id: write.run, format: "json" });
    expect(json?.filename).toBe(`${write.run}.json`);
    expect(JSON.parse(json!.content)).toMatchObject({ run: { id: write.run } });
    const har = await call("runs.export", { id: write.run, format: "har" });
    expect(JSON.parse(har!.content).log.entries).toHaveLength(1);
    expect(await call("runs.export", { id: "run_none", format: "json" })).toBeNull();

    const replayed = await call("runs.replay", { id: read.run });
    expect(replayed).toMatchObject({ status: "completed", result: [{ id: 1, name: "a" }] });
    expect(await call("runs.cancel", { id: read.run })).toMatchObject({ ok: false });
    expect((await call("runs.search", { code: "async () => specs.t.operations.length" })).result).toBe(4);
  });

  it("records 'always' as an allow rule that can be listed and removed", async () => {
    const write = await call("runs.execute", { code: "async () => (await apis.t.deleteItem({ id: 3 })).status", policy: "all" });
    const finished = bench.workbench.bus.next((e): e is Extract<WorkbenchEvent, { type: "run.finished" }> => e.type === "run.finished" && e.runId === write.run);
    expect(await call("decisions.decide", { runId: write.run, decision: "always" })).toMatchObject({ ok: true });
    await finished;
    expect((await call("rules.list", {})).map((r) => `${r.api}.${r.operationId}`)).toContain("t.deleteItem");
    expect(await call("rules.remove", { api: "t", operationId: "deleteItem" })).toMatchObject({ ok: true });
    expect(await call("rules.remove", { api: "t", operationId: "deleteItem" })).toMatchObject({ ok: false });
  });

  it("keeps vault values masked except on an explicit reveal", async () => {
    expect(await call("vault.set", { item: "gh", field: "token", value: "ghp_supersecret", allowApis: ["t"] })).toMatchObject({ ok: true });
    const list = await call("vault.list", {});
    expect(list.find((i) => i.name === "gh")).toEqual({ name: "gh", allowApis: ["t"], fields: [{ name: "token" }] });
    expect(JSON.stringify(list)).not.toContain("ghp_supersecret");
    expect(await call("vault.reveal", { item: "gh", field: "token" })).toEqual({ ok: true, value: "ghp_supersecret" });
    expect(await call("vault.reveal", { item: "gh", field: "nope" })).toMatchObject({ ok: false });
    expect(await call("vault.set", { item: "gh", field: "short", value: "abc" })).toMatchObject({ ok: false, message: expect.not.stringContaining("abc\"") });
    expect(await call("vault.allow", { item: "gh", apis: ["t", "petstore"] })).toMatchObject({ ok: true });
    expect((await call("vault.list", {})).find((i) => i.name === "gh")?.allowApis).toEqual(["petstore", "t"]);
    expect(await call("vault.remove", { item: "gh", field: "token" })).toMatchObject({ ok: true });
    expect(await call("vault.remove", { item: "gh" })).toMatchObject({ ok: true });
    expect(await call("vault.remove", { item: "gh" })).toMatchObject({ ok: false });
  });

  it("keeps the editor's programs in an owner-only file", async () => {
    expect(await call("programs.list", {})).toEqual([]);
    const programs = [{ id: "p1", name: "first", code: "async () => 1", policy: "read_only" as const }];
    expect(await call("programs.save", { programs })).toEqual({ ok: true });
    expect(await call("programs.list", {})).toEqual(programs);
    expect(statSync(join(bench.dataDir, "programs.json")).mode & 0o777).toBe(0o600);
  });

  it("answers app.info and connect", async () => {
    expect(await call("app.info", {})).toMatchObject({ dataDir: bench.dataDir, shell: "browser", node: process.version, version: expect.stringMatching(/^\d+\.\d+/) });
    const info = await call("connect.info", {});
    expect(info.snippets.claudeCode).toBe('claude mcp add --transport http workbench http://127.0.0.1:1234/mcp --header "Authorization: Bearer tok-1"');
    expect(JSON.parse(info.snippets.cursor)).toEqual({ mcpServers: { workbench: { url: "http://127.0.0.1:1234/mcp", headers: { Authorization: "Bearer tok-1" } } } });
    expect(JSON.parse(info.snippets.claudeDesktop).mcpServers.workbench.args).toEqual([expect.stringMatching(/bin\/workbench\.js$/), "mcp", "--data-dir", bench.dataDir]);
    expect((await call("connect.rotate", {})).token).toBe("tok-2");
  });

  it("asks the windows to show a run or the inbox (app.open), for runs that exist", async () => {
    const run = (await call("runs.list", {}))[0]!.id;
    const events: WorkbenchEvent[] = [];
    const off = bench.workbench.bus.subscribe((e) => events.push(e));
    expect(await call("app.open", { target: { kind: "run", runId: run } })).toEqual({ ok: true, message: "shown in the open browser tabs of workbench serve" });
    expect(await call("app.open", { target: { kind: "inbox" } })).toMatchObject({ ok: true });
    off();
    expect(events).toEqual([
      { type: "app.open", target: { kind: "run", runId: run } },
      { type: "app.open", target: { kind: "inbox" } },
    ]);
    const missing = await dispatchChannel(handlers, "app.open", { target: { kind: "run", runId: "run_nope" } }, { actor: "cli" });
    expect(missing.ok ? undefined : missing.error.error).toEqual({ code: "not-found", message: `there is no run run_nope in ${bench.dataDir}` });
  });

  it("keeps no tab session in a browser tab (only the app has one)", async () => {
    expect(await call("ui.session.get", {})).toBeNull();
    expect(await call("ui.session.save", { tabs: [{ kind: "inbox" }] })).toEqual({ ok: false, message: "only the desktop app keeps open tabs between launches" });
  });
});

/** Type-checks `program` against the declarations, as Monaco would (lib es2022, no DOM). */
function typeErrors(dts: string, program: string): string[] {
  const files = new Map([["/apis.d.ts", dts], ["/program.ts", `export {};\n${program}`]]);
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, lib: ["lib.es2022.d.ts"], strict: false, noEmit: true, types: [] };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  host.getSourceFile = (name, version) => (files.has(name) ? ts.createSourceFile(name, files.get(name)!, version) : getSourceFile(name, version));
  const program_ = ts.createProgram(["/apis.d.ts", "/program.ts"], options, host);
  return ts.getPreEmitDiagnostics(program_).map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}
