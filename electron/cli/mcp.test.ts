import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ITEMS_SPEC, openTestBench, type TestBench } from "../host/test-support/workbench.ts";
import { Workbench } from "../host/workbench.ts";
import { startWorkbenchServer, type WorkbenchServer } from "../serve.ts";
import { lockfilePath, readLock } from "../serve/lockfile.ts";
import { childEnv, envelopeOf, REPO_ROOT, runCli, tempDataDir, TEST_VAULT_KEY, WORKBENCH_BIN } from "../serve/test-support.ts";

/** `workbench mcp` as a real child process, driven by the SDK's stdio client. */
async function stdioClient(dataDir: string, name = "stdio-agent", args: string[] = [], env: NodeJS.ProcessEnv = childEnv(dataDir)) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [WORKBENCH_BIN, "mcp", "--data-dir", dataDir, ...args], cwd: REPO_ROOT, env: env as Record<string, string>, stderr: "pipe" });
  let stderr = "";
  const client = new Client({ name, version: "0.9" }, { capabilities: {} });
  const connecting = client.connect(transport);
  transport.stderr?.on("data", (c: Buffer) => void (stderr += c.toString("utf8")));
  await connecting;
  const notices: { run: string; status: string; [key: string]: unknown }[] = [];
  const updated: string[] = [];
  let waiters: (() => void)[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    notices.push(n.params.data as { run: string; status: string });
    for (const w of waiters) w();
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  const finishedNotice = async (runId: string) => {
    while (!notices.some((n) => n.run === runId)) await new Promise<void>((resolve) => (waiters = [...waiters, resolve]));
    waiters = [];
    return notices.find((n) => n.run === runId)!;
  };
  return { client, transport, stderr: () => stderr, finishedNotice, updated };
}

describe("workbench mcp with no workbench running: a headless host on stdio", () => {
  const dataDir = tempDataDir("wb-mcp-headless-");
  let agent: Awaited<ReturnType<typeof stdioClient>>;

  beforeAll(async () => {
    agent = await stdioClient(dataDir);
  });
  afterAll(async () => {
    await agent?.client.close();
  });

  it("lists the tools, searches and reads", async () => {
    const { tools } = await agent.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_apis", "execute_api_code", "execute_api_mutations", "get_code_run"]);
    const found = envelopeOf(await agent.client.callTool({ name: "search_apis", arguments: { code: "async () => specs.petstore.find('pet', 3).map((o) => o.id)" } }));
    expect(found.status).toBe("completed");
    const read = envelopeOf(await agent.client.callTool({ name: "execute_api_code", arguments: { code: "async () => (await apis.petstore.listPets({ limit: 2 })).status" } }));
    expect(read).toMatchObject({ status: "completed", result: 200 });
    expect(agent.stderr()).toMatch(/headless/);
    expect(readLock(dataDir)?.kind).toBe("mcp");
  });

  it("a write waits; `workbench approve` from another process continues it here, and the agent is notified", async () => {
    const pending = envelopeOf(await agent.client.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => (await apis.petstore.createPet({ body: { name: "Stdio" } })).body' } }));
    expect(pending).toMatchObject({ status: "pending", pending: { operation: "POST /pets" } });
    const approved = await runCli(["approve", pending.run], dataDir);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: "completed", result: { name: "Stdio" } });
    // The notice carries the outcome, so the agent need not poll.
    expect(await agent.finishedNotice(pending.run)).toMatchObject({ status: "completed", calls: "POST /pets 201 (approved)", result: { name: "Stdio" } });
    expect(agent.updated).toContain(`coderun://${pending.run}`);
    const final = envelopeOf(await agent.client.callTool({ name: "get_code_run", arguments: { run: pending.run } }));
    expect(final).toMatchObject({ status: "completed", calls: [{ status: 201, decision: "approved" }] });
    // The pet was created by this process's demo server: the approval continued the run here.
    const id = (final.result as { id: number }).id;
    const read = envelopeOf(await agent.client.callTool({ name: "execute_api_code", arguments: { code: `async () => (await apis.petstore.getPet({ petId: ${id} })).body.name` } }));
    expect(read.result).toBe("Stdio");
  });

  it("a large outcome comes in brief in the notice; get_code_run has it all", async () => {
    const code = 'async () => { const r = await apis.petstore.createPet({ body: { name: "Big" } }); return { status: r.status, rows: Array.from({ length: 400 }, (_, i) => ({ i, text: "row " + i })) } }';
    const pending = envelopeOf(await agent.client.callTool({ name: "execute_api_mutations", arguments: { code } }));
    expect((await runCli(["approve", pending.run], dataDir)).code).toBe(0);
    const notice = await agent.finishedNotice(pending.run);
    expect(JSON.stringify(notice).length).toBeLessThan(2_500);
    expect(notice).toMatchObject({ status: "completed", result: { status: 201, rows: expect.arrayContaining([{ i: 0, text: "row 0" }]) } });
    expect(notice.truncated).toBe(`the result is cut to about 300 tokens. Read it whole with get_code_run({"run": "${pending.run}"}).`);
    const whole = envelopeOf(await agent.client.callTool({ name: "get_code_run", arguments: { run: pending.run } }));
    expect((whole.result as { rows: unknown[] }).rows).toHaveLength(400);
  });

  it("tells a denied run's outcome: the program's own answer to CallDenied", async () => {
    const pending = envelopeOf(await agent.client.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => { try { await apis.petstore.deletePet({ petId: 2 }) } catch (e) { return e.name + ": " + e.message } }' } }));
    expect((await runCli(["deny", pending.run, "--message", "keep that pet"], dataDir)).code).toBe(0);
    expect(await agent.finishedNotice(pending.run)).toMatchObject({ status: "completed", calls: "DELETE /pets/{petId} denied", result: "CallDenied: A person denied this call: keep that pet" });
  });

  it("notices a decision made by another process that opened the data directory itself", async () => {
    const pending = envelopeOf(await agent.client.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => { try { await apis.petstore.deletePet({ petId: 1 }) } catch (e) { return e.name } }' } }));
    const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (!opened.ok) throw new Error(opened.message);
    const decided = await opened.workbench.decide(pending.run, "deny", "another-process", "no");
    await opened.workbench.close();
    expect(decided).toMatchObject({ ok: true, envelope: { status: "completed", result: "CallDenied" } });
    expect(await agent.finishedNotice(pending.run)).toMatchObject({ status: "completed" });
  });

  it("ends when the client goes away, removing its lockfile", async () => {
    const other = tempDataDir("wb-mcp-end-");
    const short = await stdioClient(other);
    await short.client.listTools();
    expect(existsSync(lockfilePath(other))).toBe(true);
    const pid = short.transport.pid!;
    await short.client.close();
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(lockfilePath(other))).toBe(false);
  });
});

describe("workbench mcp --tools: only the tools a host wants", () => {
  it("headless, offers only the tools named", async () => {
    const dataDir = tempDataDir("wb-mcp-tools-");
    const readOnly = await stdioClient(dataDir, "read-only-agent", ["--tools", "search,execute"]);
    expect((await readOnly.client.listTools()).tools.map((t) => t.name)).toEqual(["search_apis", "execute_api_code"]);
    await expect(readOnly.client.callTool({ name: "execute_api_mutations", arguments: { code: "async () => 1" } })).rejects.toThrow(/unknown tool/);
    await readOnly.client.close();
  });

  it("refuses an unknown tool at parse time, exit 1", () => {
    const child = spawnSync(process.execPath, [WORKBENCH_BIN, "mcp", "--tools", "search,writes"], { cwd: REPO_ROOT, env: childEnv(tempDataDir()), encoding: "utf8", input: "" });
    expect(child.status).toBe(1);
    expect(child.stderr).toContain(`option '--tools <list>' argument 'search,writes' is invalid. unknown tool "writes"; the tools are search, execute, mutations and get-run`);
  });
});

describe("workbench mcp with a workbench running: a relay to its /mcp", () => {
  let bench: TestBench;
  let server: WorkbenchServer;
  let agent: Awaited<ReturnType<typeof stdioClient>>;

  beforeAll(async () => {
    bench = await openTestBench({}, tempDataDir("wb-mcp-proxy-"));
    server = await startWorkbenchServer({ workbench: bench.workbench, kind: "serve", shell: "browser", rendererDir: false, reusePort: false });
    agent = await stdioClient(bench.dataDir, "relayed-agent");
  });
  afterAll(async () => {
    await agent?.client.close();
    await server?.close();
    await bench?.close();
  });

  it("relays tools, runs and notifications; the run is the running instance's, with the client's name", async () => {
    expect(agent.stderr()).toMatch(/relaying to the workbench at http:\/\/127\.0\.0\.1:\d+ \(serve/);
    const { tools } = await agent.client.listTools();
    expect(tools[2]!.description).toContain("- t: Items");
    const pending = envelopeOf(await agent.client.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => (await apis.t.createItem({ body: { name: "relayed" } })).status' } }));
    expect(pending.status).toBe("pending");
    expect(bench.workbench.store.getRun(pending.run)?.source).toEqual({ kind: "mcp", client: "relayed-agent 0.9" });

    const approved = await runCli(["approve", pending.run], bench.dataDir);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: "completed", result: 201 });
    expect(await agent.finishedNotice(pending.run)).toMatchObject({ status: "completed" });
    expect(envelopeOf(await agent.client.callTool({ name: "get_code_run", arguments: { run: pending.run } }))).toMatchObject({ status: "completed", result: 201 });
    expect(bench.count("POST", "/items")).toBe(1);
  });

  it("--tools narrows what a relayed agent gets: a read-only agent cannot reach the running app's mutation tool", async () => {
    const readOnly = await stdioClient(bench.dataDir, "relayed-read-only", ["--tools", "execute,get-run", "--memory-mb", "64"]);
    expect(readOnly.stderr()).toMatch(/--memory-mb ignored: the running workbench's names and limits apply/);
    expect((await readOnly.client.listTools()).tools.map((t) => t.name)).toEqual(["execute_api_code", "get_code_run"]);
    await expect(readOnly.client.callTool({ name: "execute_api_mutations", arguments: { code: "async () => 1" } })).rejects.toThrow(/unknown tool execute_api_mutations/);
    await readOnly.client.close();
  });

  it("relays tools/list_changed when an API is added in the instance", async () => {
    const changed = new Promise<void>((resolve) => agent.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const { result } = bench.workbench.registry.store.ingest(JSON.stringify({ ...ITEMS_SPEC, info: { title: "Relayed Items", version: "1" } }));
    if (!result.ok) throw new Error(result.error.message);
    expect(bench.workbench.registry.register("relayed", result.artifact, { baseUrl: bench.upstream.url }, { kind: "text" }).ok).toBe(true);
    await changed;
    expect((await agent.client.listTools()).tools[0]!.description).toContain("- relayed: Relayed Items");
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
