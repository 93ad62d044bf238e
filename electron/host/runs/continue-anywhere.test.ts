/**
 * A run can be continued (approved, denied, replayed, cancelled) by another
 * workbench on the same data directory: a second Workbench with its own store
 * session, sandbox and demo server, as another process would have. Real
 * sandbox, real upstreams on loopback, real store.
 */
import { afterEach, describe, expect, it } from "vitest";
import { apiConfig } from "../../../shared/api-config.ts";
import { startItemsUpstream, ITEMS_SPEC, openTestBench, TEST_VAULT_KEY, type TestBench } from "../test-support/workbench.ts";
import type { RecordingServer } from "../test-support/recording-server.ts";
import { Workbench } from "../workbench.ts";

const cli = { kind: "cli" } as const;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function bench(): Promise<TestBench> {
  const b = await openTestBench();
  cleanup.push(() => b.close());
  return b;
}

/** Another workbench on the same data directory, as another process would open it. */
async function another(dataDir: string): Promise<Workbench> {
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
  if (!opened.ok) throw new Error(opened.message);
  cleanup.push(() => opened.workbench.close());
  await opened.workbench.ready();
  return opened.workbench;
}

async function upstream(): Promise<RecordingServer> {
  const server = await startItemsUpstream();
  cleanup.push(() => server.close());
  return server;
}

/** Adds `alerts` as a one-off API (as `--spec alerts=...` does) to this workbench only. */
function addOneOff(workbench: Workbench, baseUrl: string): void {
  const { result } = workbench.registry.store.ingest(JSON.stringify(ITEMS_SPEC));
  if (!result.ok) throw new Error(result.error.message);
  workbench.apis.addOneOff({ name: "alerts", artifact: result.artifact, config: apiConfig.parse({ baseUrl }), baseUrl, oneOff: true });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("a run started with a one-off API (--spec)", () => {
  it("is approved by a workbench that was never given that API: it is put back from the run's record, still one-off", async () => {
    const b = await bench();
    const alerts = await upstream();
    addOneOff(b.workbench, alerts.url);
    // An allow rule and a vault item that name "alerts" must not apply to the one-off API, wherever the run continues.
    b.workbench.store.addAllowRule({ api: "alerts", operationId: "createItem", createdBy: "tester" });
    b.workbench.vault.set("alerts", "token", "canary-not-for-one-offs", { allowApis: ["alerts"] });
    const code = `async () => {
      const first = await apis.alerts.createItem({ body: { name: "first" } });
      let vaultUse;
      try { await apis.alerts.listItems({ tag: vault.alerts.token }); } catch (e) { vaultUse = e.name; }
      const second = await apis.alerts.createItem({ body: { name: "second" } });
      return { first: first.status, vaultUse, second: second.status };
    }`;
    await b.workbench.apis.refresh();
    // Per-call approvals: each write is its own decision, made by the other workbench.
    const pending = await b.workbench.engine.execute({ code, policy: "all", source: cli, approvals: "per-call" });
    expect(pending).toMatchObject({ status: "pending", pending: { call: 0, api: "alerts" } });
    expect(b.workbench.store.getRunApis(pending.run)).toEqual([expect.objectContaining({ name: "alerts", oneOff: true, baseUrl: alerts.url })]);

    const other = await another(b.dataDir);
    expect(other.apis.get("alerts")).toBeUndefined();
    const approved = await other.decide(pending.run, "approve", "someone else");
    expect(approved.ok && approved.envelope).toMatchObject({ status: "pending", pending: { call: 2, api: "alerts", operation: "POST /items" } });
    expect(alerts.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    const [, vaultCall] = other.store.getCalls(pending.run);
    expect(vaultCall).toMatchObject({ status: "rejected", error: { name: "VaultDenied", message: expect.stringMatching(/given on the command line \(--spec\) and gets no vault access/) } });

    const done = await other.decide(pending.run, "approve", "someone else");
    expect(done.ok && done.envelope).toMatchObject({ status: "completed", result: { first: 201, vaultUse: "VaultDenied", second: 201 } });
    expect(alerts.requests.filter((r) => r.method === "POST")).toHaveLength(2);
    expect(JSON.stringify(other.store.getCalls(pending.run))).not.toContain("canary-not-for-one-offs");
  });

  it("replays in a workbench that was never given that API, and cancels there", async () => {
    const b = await bench();
    const alerts = await upstream();
    addOneOff(b.workbench, alerts.url);
    await b.workbench.apis.refresh();
    const first = await b.workbench.engine.execute({ code: "async () => (await apis.alerts.listItems({})).status", policy: "read_only", source: cli });
    expect(first.result).toBe(200);
    const other = await another(b.dataDir);
    const replayed = await other.replay(first.run, { source: cli });
    expect(replayed).toMatchObject({ status: "completed", result: 200, calls: [{ replayed: true }] });
    expect(other.store.getRunApis(replayed.run)).toEqual([expect.objectContaining({ name: "alerts", oneOff: true })]);
    const fresh = await other.replay(first.run, { source: cli, fresh: true });
    expect(fresh).toMatchObject({ status: "completed", result: 200 });
    expect(alerts.requests.filter((r) => r.method === "GET")).toHaveLength(2);

    const waiting = await b.workbench.engine.execute({ code: "async () => (await apis.alerts.createItem({ body: { name: 'x' } })).status", policy: "all", source: cli });
    expect(await other.engine.cancel(waiting.run, "cli")).toEqual({ ok: true, message: `run ${waiting.run} cancelled` });
    expect(other.store.getRun(waiting.run)).toMatchObject({ status: "cancelled" });
  });

  it("says clearly when the one-off API's spec cannot be put back", async () => {
    const b = await bench();
    const alerts = await upstream();
    addOneOff(b.workbench, alerts.url);
    await b.workbench.apis.refresh();
    const pending = await b.workbench.engine.execute({ code: "async () => (await apis.alerts.createItem({ body: { name: 'x' } })).status", policy: "all", source: cli });
    const hash = b.workbench.store.getRunApis(pending.run)[0]!.specHash;
    const { rmSync } = await import("node:fs");
    rmSync(`${b.workbench.registry.store.dir}/${hash}.json`);
    rmSync(`${b.workbench.registry.store.dir}/${hash}.source`);
    const other = await another(b.dataDir);
    const refused = await other.decide(pending.run, "approve", "cli");
    expect(refused).toEqual({ ok: false, message: expect.stringMatching(new RegExp(`^run ${pending.run} cannot be approved from here: the one-off API alerts \\(given with --spec\\) that this run used cannot be put back \\(the parsed spec [0-9a-f]{12} is missing and its text is gone\\); run the program again with --spec alerts=<spec>\\. Deny or cancel it instead`)) });
    expect(other.store.getPendingDecision(pending.run)).toBeDefined(); // nothing was lost: the decision still waits
    const denied = await other.decide(pending.run, "deny", "cli");
    expect(denied.ok && denied.envelope).toMatchObject({ status: "failed", error: { name: "CallDenied" } });
    expect(alerts.requests.filter((r) => r.method === "POST")).toHaveLength(0);
  });
});

describe("a registered API that changed or went away while a run waited", () => {
  it("removed: approve says so and refuses; deny continues, and a live call to it is refused and recorded", async () => {
    const b = await bench();
    const code = `async () => {
      let written;
      try { written = (await apis.t.createItem({ body: { name: "x" } })).status; } catch (e) { written = e.name; }
      try { await apis.t.listItems({}); return { written, read: "sent" }; } catch (e) { return { written, read: e.name + ": " + e.message }; }
    }`;
    const pending = await b.workbench.execute({ code, policy: "all", source: cli });
    const other = await another(b.dataDir);
    expect(other.registry.remove("t").ok).toBe(true);
    await other.ready();
    const refused = await other.decide(pending.run, "approve", "cli");
    expect(refused).toEqual({ ok: false, message: `run ${pending.run} cannot be approved from here: API t, which this run used, has been removed since (register it again with workbench api add t to continue the run). Deny or cancel it instead: workbench deny ${pending.run}, or workbench runs cancel ${pending.run}` });
    const denied = await other.decide(pending.run, "deny", "cli");
    expect(denied.ok && denied.envelope).toMatchObject({
      status: "completed",
      result: { written: "CallDenied", read: "CallRejected: API t, which this run used, has been removed since (register it again with workbench api add t to continue the run); nothing was sent" },
    });
    expect(other.store.getCalls(pending.run).map((c) => [c.operation, c.status])).toEqual([["POST /items", "denied"], ["apis.t.listItems", "rejected"]]);
    expect(b.count("POST", "/items")).toBe(0);
  });

  it("changed: the run's logs say what changed; a new base URL asks again, a new timeout does not", async () => {
    const b = await bench();
    const moved = await upstream();
    const code = "async () => (await apis.t.createItem({ body: { name: 'x' } })).status";
    const first = await b.workbench.execute({ code, policy: "all", source: cli });
    const other = await another(b.dataDir);
    expect(other.registry.update("t", { config: { baseUrl: b.upstream.url, timeoutMs: 5_000 } }).ok).toBe(true);
    const sameRequest = await other.decide(first.run, "approve", "cli");
    expect(sameRequest.ok && sameRequest.envelope).toMatchObject({ status: "completed", result: 201 });
    expect(sameRequest.ok && sameRequest.envelope.logs).toEqual([`workbench: API t changed since this run last used it: the timeout changed from 30000 ms to 5000 ms. Calls are made with its settings as they are now; an approved call whose request changed asks again.`]);

    const second = await b.workbench.execute({ code, policy: "all", source: cli });
    expect(other.registry.update("t", { config: { baseUrl: moved.url } }).ok).toBe(true);
    await other.ready();
    const movedAway = await other.decide(second.run, "approve", "cli");
    expect(movedAway.ok && movedAway.envelope).toMatchObject({ status: "pending", pending: { changes: [`the destination changed from ${b.upstream.url} to ${moved.url}`] } });
    expect(movedAway.ok && movedAway.envelope.logs[0]).toMatch(new RegExp(`^workbench: API t changed since this run last used it: the base URL changed from ${b.upstream.url} to ${moved.url}; the timeout changed`));
    expect(moved.requests).toHaveLength(0);
  });
});

describe("cancel from another workbench", () => {
  it("a run another process is running is stopped by it, through the store, and ends Cancelled", async () => {
    const b = await bench();
    const running = b.workbench.execute({ code: "async () => { for (;;) await apis.t.slow({ ms: 50 }) }", policy: "read_only", source: cli, limits: { maxCalls: 10_000 } });
    await until(() => b.count("GET", "/slow/") > 0, "the first call");
    const runId = b.workbench.store.listRuns({})[0]!.id;
    const other = await another(b.dataDir);
    expect(await other.engine.cancel(runId, "cli")).toEqual({ ok: true, message: `run ${runId} cancelled (the process running it stopped it)` });
    const envelope = await running;
    expect(envelope.error).toEqual({ reason: "Cancelled", name: "Cancelled", message: "cancelled by cli" });
    expect(other.store.getCancelRequest(runId)).toBeUndefined();
    await b.workbench.finishCallsOnTheWire(5_000);
    const sent = b.count("GET", "/slow/");
    await new Promise((r) => setTimeout(r, 200));
    expect(b.count("GET", "/slow/")).toBe(sent); // nothing more after the cancel
  });

  it("a finished run is not cancelled, and says why", async () => {
    const b = await bench();
    const done = await b.workbench.execute({ code: "async () => 1", policy: "read_only", source: cli });
    const other = await another(b.dataDir);
    expect(await other.engine.cancel(done.run, "cli")).toEqual({ ok: false, message: `run ${done.run} is completed; only running or pending runs can be cancelled` });
  });
});
