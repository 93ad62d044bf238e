/**
 * Faults in a call's life, met by real processes (`node bin/workbench.js`,
 * `workbench mcp` driven by the SDK's stdio client, `workbench serve` with an
 * HTTP MCP client) against a real upstream on loopback that holds or delays
 * answers on demand:
 *
 * - kill -9 at each step of a call's life: recorded but not yet sent (its
 *   credential being fetched), on the wire, answered with the next one on the
 *   wire, an approved write on the wire in `workbench approve`, a late answer
 *   awaited after the run ended, and `workbench serve` with a run going;
 * - a late upstream answer after each way a run can end: returned without
 *   awaiting, wall clock, call limit, an error, a cancel from another process;
 * - a run started with a one-off `--spec` approved by another command.
 *
 * Each asserts what the store and each face say afterwards (CLI output as a
 * process; MCP's get_code_run where a run can be asked for), what the upstream
 * received (nothing sent twice), and that nothing readable was lost.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Envelope } from "../../shared/envelope.ts";
import type { CallRecord, CodeRun } from "../../shared/runs.ts";
import { json, startRecordingServer, type ReceivedRequest, type RecordingServer } from "../host/test-support/recording-server.ts";
import { ITEMS_SPEC } from "../host/test-support/workbench.ts";
import { Workbench } from "../host/workbench.ts";
import { childEnv, envelopeOf, httpMcpClient, REPO_ROOT, spawnServe, tempDataDir, TEST_VAULT_KEY, WORKBENCH_BIN } from "../serve/test-support.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

// ---- the upstream ----

/**
 * The items API, whose answers the test controls: `hold(path)` keeps requests
 * to paths starting with it unanswered until released (or forever); /slow/{ms}
 * answers after ms; /token is an OAuth2 token endpoint.
 */
interface Upstream extends RecordingServer {
  hold(pathPrefix: string): { release(): void; arrived: Promise<ReceivedRequest> };
  count(method: string, pathPrefix: string): number;
}

async function upstream(): Promise<Upstream> {
  const holds: { prefix: string; released: Promise<void>; arrive: (r: ReceivedRequest) => void }[] = [];
  let nextId = 500;
  const server = await startRecordingServer(async (req, res) => {
    const hold = holds.find((h) => req.path.startsWith(h.prefix));
    if (hold) {
      hold.arrive(req);
      await hold.released;
    }
    if (req.path === "/token") return json(res, 200, { access_token: "tok-1", token_type: "Bearer", expires_in: 3600 });
    if (req.path.startsWith("/slow/")) {
      const ms = Number(req.path.split("/")[2]);
      await new Promise((r) => setTimeout(r, ms));
      return json(res, 200, { waited: ms });
    }
    if (req.path === "/items" && req.method === "GET") return json(res, 200, [{ id: 1, name: "a" }]);
    if (req.path === "/items" && req.method === "POST") return json(res, 201, { id: nextId++, ...(JSON.parse(req.text || "{}") as object) });
    json(res, 404, { error: "not found" });
  });
  cleanup.push(() => server.close());
  return Object.assign(server, {
    hold(prefix: string) {
      let release!: () => void;
      let arrive!: (r: ReceivedRequest) => void;
      const released = new Promise<void>((r) => (release = r));
      const arrived = new Promise<ReceivedRequest>((r) => (arrive = r));
      holds.push({ prefix, released, arrive });
      return { release, arrived };
    },
    count: (method: string, prefix: string) => server.requests.filter((r) => r.method === method && r.path.startsWith(prefix)).length,
  });
}

// ---- the data directory and the processes ----

/** A data directory with API `t` (the items API at `up`), API `o` (the same behind OAuth2) and one finished run to check nothing is lost. */
async function dataDirFor(up: Upstream): Promise<{ dataDir: string; baseline: CodeRun }> {
  const dataDir = tempDataDir("wb-run-faults-");
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
  if (!opened.ok) throw new Error(opened.message);
  const workbench = opened.workbench;
  try {
    const { result } = workbench.registry.store.ingest(JSON.stringify(ITEMS_SPEC));
    if (!result.ok) throw new Error(result.error.message);
    workbench.registry.register("t", result.artifact, { baseUrl: up.url, timeoutMs: 10_000 }, { kind: "text" });
    workbench.registry.register("o", result.artifact, { baseUrl: up.url, auth: { inline: { type: "oauth2", flows: { clientCredentials: { tokenUrl: `${up.url}/token`, scopes: {} } } }, username: "client-1", credential: "vault:o/secret" } }, { kind: "text" });
    workbench.vault.set("o", "secret", "client-secret-1", { allowApis: ["o"] });
    const envelope = await workbench.execute({ code: "async () => (await apis.t.listItems({})).body", policy: "read_only", source: { kind: "cli" } });
    up.requests.length = 0;
    return { dataDir, baseline: workbench.store.getRun(envelope.run)! };
  } finally {
    await workbench.close();
  }
}

interface Child {
  child: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

/** `node bin/workbench.js <args>` in the background, the program (if any) on stdin. */
function spawnWorkbench(dataDir: string, args: string[], program?: string): Child {
  const child = spawn(process.execPath, [WORKBENCH_BIN, ...args, "--data-dir", dataDir], { cwd: REPO_ROOT, env: childEnv(dataDir), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => void (err += c.toString("utf8")));
  child.stdin!.end(program ?? "");
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return { child, out: () => out, err: () => err, exited };
}

/**
 * A CLI command run to its end, as a person would in another terminal. Never
 * spawnSync: the upstream lives in this process and must keep answering.
 */
async function cli(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawnWorkbench(dataDir, args);
  const code = await run.exited;
  return { code, stdout: run.out(), stderr: run.err() };
}

async function shown(dataDir: string, runId: string): Promise<{ run: CodeRun; calls: CallRecord[] }> {
  const out = await cli(dataDir, "runs", "show", runId, "--json");
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as { run: CodeRun; calls: CallRecord[] };
}

/** The one run now `running`, as `workbench runs list` shows it. */
async function runningRunId(dataDir: string): Promise<string> {
  let id: string | undefined;
  await untilAsync(async () => {
    const listed = (await cli(dataDir, "runs", "list", "--status", "running", "--json")).stdout.trim();
    id = listed ? (JSON.parse(listed.split("\n")[0]!) as { id: string }).id : undefined;
    return id !== undefined;
  }, "a running run");
  return id!;
}

/** get_code_run, asked of a headless `workbench mcp` process through the SDK's stdio client. */
async function getCodeRun(dataDir: string, runId: string): Promise<Record<string, unknown>> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [WORKBENCH_BIN, "mcp", "--data-dir", dataDir], cwd: REPO_ROOT, env: childEnv(dataDir) as Record<string, string>, stderr: "pipe" });
  const client = new Client({ name: "fault-test", version: "1" }, { capabilities: {} });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "get_code_run", arguments: { run: runId } });
    return JSON.parse((result.content as { type: string; text: string }[])[0]!.text) as Record<string, unknown>;
  } finally {
    await client.close();
  }
}

async function killed(child: Child): Promise<void> {
  child.child.kill("SIGKILL");
  await child.exited;
}

/** Nothing readable was lost: the run made before the fault is still there, exactly. */
async function baselineIntact(dataDir: string, baseline: CodeRun): Promise<void> {
  const again = (await shown(dataDir, baseline.id));
  expect(again.run.envelope).toEqual(baseline.envelope);
  expect(again.run.status).toBe("completed");
}

const READ = "async () => (await apis.t.listItems({})).status";

// ---- kill -9 at each step of a call's life ----

describe("kill -9 at each step of a call's life", { timeout: 120_000 }, () => {
  it("recorded, not yet sent (its OAuth2 token being fetched): unknown, and the API never got it", async () => {
    const up = await upstream();
    const { dataDir, baseline } = await dataDirFor(up);
    const token = up.hold("/token");
    const run = spawnWorkbench(dataDir, ["run", "--code", "-"], "async () => (await apis.o.listItems({})).status");
    await token.arrived;
    await killed(run);

    const next = await cli(dataDir, "runs", "list");
    expect(next.stderr).toMatch(/note: 1 run\(s\) were interrupted when the workbench last stopped; 1 call\(s\) were in flight and their outcome is unknown \(nothing is re-sent\)\./);
    const runId = next.stdout.split("\n")[1]!.split(" ")[0]!;
    const { run: stored, calls } = (await shown(dataDir, runId));
    expect(stored.status).toBe("interrupted");
    expect(calls).toEqual([expect.objectContaining({ operation: "GET /items", status: "unknown" })]);
    expect(up.count("GET", "/items")).toBe(0);
    const text = (await cli(dataDir, "runs", "show", runId)).stdout;
    expect(text).toContain("state: interrupted: the workbench stopped while this run was running\n  Calls marked unknown may have reached the API: verify before retrying. Nothing is re-sent by itself.\n");
    expect(text).toMatch(/ {2}0\. GET \/items {2}unknown {2}\(sent, but its outcome is unknown/);
    expect(text).not.toMatch(/approve|waiting for/);
    const view = await getCodeRun(dataDir, runId);
    expect(view).toMatchObject({ status: "failed", error: { name: "Interrupted" }, calls: [{ status: "unknown", note: "outcome unknown, verify before retrying" }] });
    await baselineIntact(dataDir, baseline);
  });

  it("on the wire: unknown, the run interrupted, and a replay refuses to send it again", async () => {
    const up = await upstream();
    const { dataDir, baseline } = await dataDirFor(up);
    const held = up.hold("/items");
    const run = spawnWorkbench(dataDir, ["run", "--code", "-"], READ);
    await held.arrived;
    await killed(run);
    held.release();

    const runId = JSON.parse((await cli(dataDir, "runs", "list", "--status", "interrupted", "--json")).stdout.trim()).id as string;
    expect((await shown(dataDir, runId)).calls).toEqual([expect.objectContaining({ status: "unknown", request: expect.objectContaining({ method: "GET" }) })]);
    const replay = await cli(dataDir, "replay", runId);
    expect(JSON.parse(replay.stdout)).toMatchObject({ status: "failed", error: { reason: "ReplayMismatch", message: expect.stringMatching(/outcome is unknown; it is never re-sent by itself/) } });
    expect(up.count("GET", "/items")).toBe(1);
    await baselineIntact(dataDir, baseline);
  });

  it("answered and recorded, the next call on the wire: the answer is kept whole, the next is unknown", async () => {
    const up = await upstream();
    const { dataDir, baseline } = await dataDirFor(up);
    const held = up.hold("/slow/");
    const run = spawnWorkbench(dataDir, ["run", "--code", "-"], "async () => { const a = await apis.t.listItems({}); await apis.t.slow({ ms: 1 }); return a.status }");
    await held.arrived;
    await killed(run);

    const runId = JSON.parse((await cli(dataDir, "runs", "list", "--status", "interrupted", "--json")).stdout.trim()).id as string;
    const { calls } = (await shown(dataDir, runId));
    expect(calls.map((c) => [c.operation, c.status])).toEqual([["GET /items", 200], ["GET /slow/{ms}", "unknown"]]);
    expect(calls[0]).toMatchObject({ response: { status: 200, body: '[{"id":1,"name":"a"}]' }, result: { status: 200, body: [{ id: 1, name: "a" }] } });
    const har = JSON.parse((await cli(dataDir, "runs", "export", runId, "--har")).stdout);
    expect(har.log.entries.map((e: { response: { status: number } }) => e.response.status)).toEqual([200, 0]);
    await baselineIntact(dataDir, baseline);
  });

  it("an approved write on the wire in `workbench approve`: unknown, the run interrupted, never 'waiting for approval' again", async () => {
    const up = await upstream();
    const { dataDir, baseline } = await dataDirFor(up);
    const pending = JSON.parse((await cli(dataDir, "run", "--code", writeProgram(dataDir), "--policy", "all")).stdout) as Envelope;
    expect(pending).toMatchObject({ status: "pending", pending: { call: 0, operation: "POST /items" } });
    const held = up.hold("/items");
    const approve = spawnWorkbench(dataDir, ["approve", pending.run]);
    await held.arrived;
    await killed(approve);

    const text = await cli(dataDir, "runs", "show", pending.run);
    expect(text.stdout).toContain("state: interrupted: the workbench stopped while this run was running\n");
    expect(text.stdout).toMatch(/ {2}0\. POST \/items {2}unknown {2}approved by cli/);
    expect(text.stdout).not.toMatch(/waiting for|workbench approve/);
    const again = await cli(dataDir, "approve", pending.run);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining(`error: run ${pending.run} is interrupted, not waiting for a decision`) });
    expect(await cli(dataDir, "runs", "cancel", pending.run)).toMatchObject({ code: 1, stderr: expect.stringContaining(`run ${pending.run} is interrupted; only running or pending runs can be cancelled`) });
    const view = await getCodeRun(dataDir, pending.run);
    expect(JSON.stringify(view)).not.toContain("workbench approve");
    expect(view).toMatchObject({ status: "failed", error: { name: "Interrupted" } });
    held.release();
    expect(up.count("POST", "/items")).toBe(1);
    await baselineIntact(dataDir, baseline);
  });

  it("the run ended, its process waiting for a late answer: the run keeps its outcome, the call and the stored envelope say unknown", async () => {
    const up = await upstream();
    const { dataDir, baseline } = await dataDirFor(up);
    const held = up.hold("/slow/");
    const run = spawnWorkbench(dataDir, ["run", "--code", "-"], "async () => { apis.t.slow({ ms: 1 }); return 'returned' }");
    await held.arrived;
    await until(() => /still waiting for an answer after the run ended/.test(run.err()), "the waiting note");
    expect(run.err()).toMatch(/^note: 1 call is still waiting for an answer after the run ended \(run_\S+ call 0: t\.slow\); waiting for it \(at most \d+ s, by the API's timeout\) so that the record says how it ended\n$/);
    await killed(run);
    held.release();

    const runId = JSON.parse((await cli(dataDir, "runs", "list", "--status", "completed", "--json")).stdout.trim().split("\n")[0]!).id as string;
    const next = (await shown(dataDir, runId));
    expect(next.run).toMatchObject({ status: "completed", envelope: { result: "returned", calls: [{ status: "unknown", note: "outcome unknown, verify before retrying" }] } });
    expect(next.calls).toEqual([expect.objectContaining({ status: "unknown" })]);
    expect((await cli(dataDir, "runs", "show", runId)).stdout).toContain("state: completed\n");
    expect(await getCodeRun(dataDir, runId)).toMatchObject({ status: "completed", result: "returned", calls: [{ status: "unknown" }] });
    await baselineIntact(dataDir, baseline);
  });

  it("`workbench serve` with an agent's run on the wire: interrupted, and the next process says so on every face", async () => {
    const up = await upstream();
    const { dataDir, baseline } = await dataDirFor(up);
    const serve = await spawnServe(dataDir);
    cleanup.push(() => void serve.stop());
    const token = /token: +(\S+)/.exec(serve.stdout())![1]!;
    const agent = await httpMcpClient(serve.mcpUrl, token);
    const held = up.hold("/items");
    const call = agent.callTool({ name: "execute_api_code", arguments: { code: READ } }).catch(() => undefined);
    await held.arrived;
    serve.child.kill("SIGKILL");
    // The client would wait out its request timeout for an answer that cannot come: closing it ends the call.
    await agent.close().catch(() => {});
    await call;
    held.release();

    const runId = JSON.parse((await cli(dataDir, "runs", "list", "--status", "interrupted", "--json")).stdout.trim()).id as string;
    expect((await shown(dataDir, runId))).toMatchObject({ run: { status: "interrupted", source: { kind: "mcp", client: "test-agent 1.2.3" } }, calls: [{ status: "unknown" }] });
    expect(await getCodeRun(dataDir, runId)).toMatchObject({ status: "failed", error: { name: "Interrupted" } });
    expect(up.count("GET", "/items")).toBe(1);
    await baselineIntact(dataDir, baseline);
  });
});

// ---- a late upstream answer after each way a run can end ----

const LATE: { ending: string; program: string; flags?: string[]; expect: { status: string; reason?: string } }[] = [
  { ending: "the program returned without awaiting the call", program: "async () => { apis.t.slow({ ms: 700 }); return 'returned' }", expect: { status: "completed" } },
  { ending: "the wall clock", program: "async () => { await apis.t.slow({ ms: 900 }); return 'never' }", flags: ["--wall-ms", "300"], expect: { status: "failed", reason: "Timeout" } },
  { ending: "the call limit", program: "async () => { apis.t.slow({ ms: 700 }); for (;;) await apis.t.listItems({}) }", flags: ["--max-calls", "3"], expect: { status: "failed", reason: "CallLimit" } },
  { ending: "an error the program threw", program: "async () => { apis.t.slow({ ms: 700 }); await apis.t.listItems({}); throw new Error('boom') }", expect: { status: "failed", reason: "Error" } },
];

describe("a late upstream answer after each way a run can end", { timeout: 120_000 }, () => {
  for (const late of LATE) {
    it(`${late.ending}: the command waits for it, and every face says answered_after_run_ended, 200`, async () => {
      const up = await upstream();
      const { dataDir, baseline } = await dataDirFor(up);
      const run = spawnWorkbench(dataDir, ["run", "--code", "-", ...(late.flags ?? [])], late.program);
      expect(await run.exited).toBe(0);
      const printed = JSON.parse(run.out()) as Envelope;
      expect(printed.status).toBe(late.expect.status);
      if (late.expect.reason) expect(printed.error?.reason).toBe(late.expect.reason);
      expect(printed.calls.find((c) => c.operation === "GET /slow/{ms}")).toMatchObject({ status: 200, answered_after_run_ended: true, note: "answered after the run ended: the program never saw this answer" });
      expect(run.err()).toMatch(/^note: 1 call is still waiting for an answer after the run ended \(run_\S+ call 0: t\.slow\); waiting for it .*\nnote: recorded; see it with: workbench runs show run_\S+\n$/);

      expect((await shown(dataDir, printed.run)).calls.find((c) => c.operation === "GET /slow/{ms}")).toMatchObject({ status: 200, endedAfterRun: true, response: { status: 200 } });
      expect((await cli(dataDir, "runs", "show", printed.run)).stdout).toMatch(/ {2}0\. GET \/slow\/\{ms\} {2}200 {2}\d+ ms {2}\(answered after the run ended: the program never saw this answer\)\n/);
      const view = await getCodeRun(dataDir, printed.run);
      expect((view.calls as Envelope["calls"]).find((c) => c.index === 0)).toMatchObject({ status: 200, answered_after_run_ended: true });
      expect(up.count("GET", "/slow/")).toBe(1);
      await baselineIntact(dataDir, baseline);
    });
  }

  it("a cancel from another process: the run stops at once, nothing more is sent, and the call on the wire is recorded when it answers", async () => {
    const up = await upstream();
    const { dataDir, baseline } = await dataDirFor(up);
    const held = up.hold("/slow/");
    const run = spawnWorkbench(dataDir, ["run", "--code", "-"], "async () => { await apis.t.slow({ ms: 1 }); await apis.t.listItems({}); return 'never' }");
    await held.arrived;
    const runId = await runningRunId(dataDir);
    const cancelled = await cli(dataDir, "runs", "cancel", runId);
    expect(cancelled).toMatchObject({ code: 0, stdout: `run ${runId} cancelled (the process running it stopped it)\n` });
    // The owner ended the run and now waits for the call it left on the wire; the upstream answers late.
    await until(() => /still waiting for an answer after the run ended/.test(run.err()), "the owner's waiting note");
    held.release();
    expect(await run.exited).toBe(0);
    const printed = JSON.parse(run.out()) as Envelope;
    expect(printed).toMatchObject({ status: "failed", error: { reason: "Cancelled", message: "cancelled by cli" }, calls: [{ status: 200, answered_after_run_ended: true }] });
    expect((await cli(dataDir, "runs", "show", runId)).stdout).toContain("state: cancelled (cancelled by cli)\n");
    expect(await getCodeRun(dataDir, runId)).toMatchObject({ status: "failed", error: { reason: "Cancelled" }, calls: [{ status: 200, answered_after_run_ended: true }] });
    expect(up.count("GET", "/items")).toBe(0);
    await baselineIntact(dataDir, baseline);
  });

  it("through `workbench serve`: an agent's run that returned without awaiting reads answered_after_run_ended from get_code_run; the CLI's cancel reaches serve's run", async () => {
    const up = await upstream();
    const { dataDir } = await dataDirFor(up);
    const serve = await spawnServe(dataDir);
    cleanup.push(() => void serve.stop());
    const agent = await httpMcpClient(serve.mcpUrl, /token: +(\S+)/.exec(serve.stdout())![1]!);
    cleanup.push(() => agent.close());
    const held = up.hold("/slow/");
    const first = envelopeOf(await agent.callTool({ name: "execute_api_code", arguments: { code: "async () => { apis.t.slow({ ms: 1 }); return 'returned' }" } }));
    expect(first).toMatchObject({ status: "completed", result: "returned" });
    await held.arrived;
    expect(envelopeOf(await agent.callTool({ name: "get_code_run", arguments: { run: first.run } })).calls).toEqual([expect.objectContaining({ status: "in_flight", note: expect.stringMatching(/^no answer yet when the run ended/) })]);
    held.release();
    let view: Envelope | undefined;
    await untilAsync(async () => {
      view = envelopeOf(await agent.callTool({ name: "get_code_run", arguments: { run: first.run } }));
      return view.calls[0]?.status === 200;
    }, "the late answer");
    expect(view!.calls[0]).toMatchObject({ status: 200, answered_after_run_ended: true });

    const heldAgain = up.hold("/items");
    const long = agent.callTool({ name: "execute_api_code", arguments: { code: "async () => { for (;;) await apis.t.listItems({}) }" } }).then(envelopeOf);
    await heldAgain.arrived;
    const runId = await runningRunId(dataDir);
    expect(await cli(dataDir, "runs", "cancel", runId)).toMatchObject({ code: 0 });
    expect(await long).toMatchObject({ status: "failed", error: { reason: "Cancelled" } });
    heldAgain.release();
  });
});

// ---- a one-off --spec run continued by another command ----

describe("a run started with a one-off --spec, continued by another command", { timeout: 120_000 }, () => {
  it("`workbench approve` in a new process puts the API back from the run's record and sends the write once", async () => {
    const up = await upstream();
    const { dataDir } = await dataDirFor(up);
    const specFile = join(dataDir, "alerts.json");
    writeFileSync(specFile, JSON.stringify(ITEMS_SPEC));
    const started = await cli(dataDir, "run", "--code", writeProgram(dataDir, "alerts"), "--policy", "all", "--spec", `alerts=${specFile},base=${up.url}`);
    const pending = JSON.parse(started.stdout) as Envelope;
    expect(pending).toMatchObject({ status: "pending", pending: { api: "alerts", operation: "POST /items" } });
    const approved = await cli(dataDir, "approve", pending.run);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: "completed", result: 201, calls: [{ api: "alerts", status: 201, decision: "approved" }] });
    expect(up.count("POST", "/items")).toBe(1);
    const replayed = await cli(dataDir, "replay", pending.run);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ status: "completed", result: 201, calls: [{ replayed: true }] });
    expect(up.count("POST", "/items")).toBe(1);
  });
});

/** A program file creating one item on `api`. */
function writeProgram(dataDir: string, api = "t"): string {
  const file = join(dataDir, `write-${api}.js`);
  writeFileSync(file, `async () => (await apis.${api}.createItem({ body: { name: "once" } })).status`);
  return file;
}

async function until(check: () => boolean, what: string): Promise<void> {
  return untilAsync(async () => check(), what);
}

async function untilAsync(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
