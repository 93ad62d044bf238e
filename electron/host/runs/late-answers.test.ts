/**
 * A call still on the wire when its run ends is recorded as it really ends:
 * for every way a run can end, the call's record and the run's stored
 * envelope say `answered_after_run_ended` with the status once the upstream
 * answers (real sandbox, real upstream on loopback, real store).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Envelope } from "../../../shared/envelope.ts";
import { json, startRecordingServer } from "../test-support/recording-server.ts";
import { ITEMS_SPEC, openTestBench, TEST_VAULT_KEY, type TestBench } from "../test-support/workbench.ts";
import { Workbench } from "../workbench.ts";

const cli = { kind: "cli" } as const;
let bench: TestBench | undefined;

afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

/** Resolves when the upstream has received `count` requests to `pathPrefix`. */
async function received(b: TestBench, method: string, pathPrefix: string, count = 1): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (b.count(method, pathPrefix) < count) {
    if (Date.now() > deadline) throw new Error(`the upstream did not receive ${method} ${pathPrefix}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function storedEnvelope(b: TestBench, runId: string): Envelope {
  return b.workbench.store.getRun(runId)!.envelope!;
}

const ENDINGS: { name: string; code: string; limits?: Record<string, number>; expect: { status: string; reason?: string } }[] = [
  { name: "the program returns without awaiting the call", code: "async () => { apis.t.slow({ ms: 600 }); return 'done' }", expect: { status: "completed" } },
  { name: "the wall clock", code: "async () => { await apis.t.slow({ ms: 900 }); return 'never' }", limits: { wallMs: 300 }, expect: { status: "failed", reason: "Timeout" } },
  { name: "the call limit", code: "async () => { apis.t.slow({ ms: 600 }); for (;;) await apis.t.listItems({}) }", limits: { maxCalls: 3 }, expect: { status: "failed", reason: "CallLimit" } },
  { name: "an error thrown by the program", code: "async () => { apis.t.slow({ ms: 600 }); await apis.t.listItems({}); throw new Error('boom') }", expect: { status: "failed", reason: "Error" } },
];

describe("a call on the wire when its run ends is recorded as it really ends", () => {
  for (const ending of ENDINGS) {
    it(`${ending.name}: the record and the stored envelope say answered_after_run_ended, 200`, async () => {
      bench = await openTestBench();
      const envelope = await bench.workbench.execute({ code: ending.code, policy: "read_only", source: cli, ...(ending.limits ? { limits: ending.limits } : {}) });
      expect(envelope.status).toBe(ending.expect.status);
      if (ending.expect.reason) expect(envelope.error?.reason).toBe(ending.expect.reason);
      // The upstream gets the request either way: a started call is carried through.
      await received(bench, "GET", "/slow/");
      expect(await bench.workbench.finishCallsOnTheWire(10_000)).toBe(true);

      const runId = envelope.run;
      const slow = bench.workbench.store.getCalls(runId).find((c) => c.operation === "GET /slow/{ms}")!;
      expect(slow).toMatchObject({ status: 200, endedAfterRun: true, response: { status: 200 } });
      const stored = storedEnvelope(bench, runId);
      expect(stored.calls.find((c) => c.operation === "GET /slow/{ms}")).toMatchObject({ status: 200, answered_after_run_ended: true, note: "answered after the run ended: the program never saw this answer" });
      // The run's outcome is what it was: the late answer changes the record of calls only.
      expect(stored.status).toBe(envelope.status);
      expect(stored.error).toEqual(envelope.error);
      expect(stored.result).toEqual(envelope.result);
      expect(bench.count("GET", "/slow/")).toBe(1);
    });
  }

  it("a cancel: the run ends Cancelled at once, nothing more is sent, and the call on the wire is recorded when it answers", async () => {
    bench = await openTestBench();
    const started = bench.workbench.execute({ code: "async () => { await apis.t.slow({ ms: 700 }); await apis.t.listItems({}); return 'never' }", policy: "read_only", source: cli });
    await received(bench, "GET", "/slow/");
    const runId = bench.workbench.store.listRuns({})[0]!.id;
    expect(await bench.workbench.engine.cancel(runId, "tester")).toEqual({ ok: true, message: `run ${runId} is being cancelled` });
    const envelope = await started;
    expect(envelope.error).toMatchObject({ reason: "Cancelled", message: "cancelled by tester" });
    expect(envelope.calls).toEqual([expect.objectContaining({ status: "in_flight", note: expect.stringMatching(/^no answer yet when the run ended/) })]);
    expect(await bench.workbench.finishCallsOnTheWire(10_000)).toBe(true);
    expect(storedEnvelope(bench, runId).calls).toEqual([expect.objectContaining({ status: 200, answered_after_run_ended: true })]);
    expect(bench.workbench.store.getRun(runId)?.status).toBe("cancelled");
    expect(bench.count("GET", "/items")).toBe(0);
  });

  it("a cancel while a call waits for its OAuth2 token: the call is not sent once the token comes, and says so", async () => {
    bench = await openTestBench();
    let releaseToken!: () => void;
    const tokenHeld = new Promise<void>((r) => (releaseToken = r));
    let tokenAsked!: () => void;
    const asked = new Promise<void>((r) => (tokenAsked = r));
    const upstream = await startRecordingServer(async (req, res) => {
      if (req.path === "/token") {
        tokenAsked();
        await tokenHeld;
        return json(res, 200, { access_token: "tok", token_type: "Bearer", expires_in: 3600 });
      }
      json(res, 200, []);
    });
    try {
      const { workbench } = bench;
      const { result } = workbench.registry.store.ingest(JSON.stringify(ITEMS_SPEC));
      if (!result.ok) throw new Error(result.error.message);
      workbench.registry.register("o", result.artifact, { baseUrl: upstream.url, auth: { inline: { type: "oauth2", flows: { clientCredentials: { tokenUrl: `${upstream.url}/token`, scopes: {} } } }, username: "client", credential: "vault:o/secret" } }, { kind: "text" });
      workbench.vault.set("o", "secret", "s3cret", { allowApis: ["o"] });
      const started = workbench.execute({ code: "async () => (await apis.o.listItems({})).status", policy: "read_only", source: cli });
      await asked;
      const runId = workbench.store.listRuns({})[0]!.id;
      expect(workbench.store.getCalls(runId)).toEqual([expect.objectContaining({ status: "in_flight" })]);
      await workbench.engine.cancel(runId, "tester");
      expect((await started).error).toMatchObject({ reason: "Cancelled" });
      releaseToken();
      expect(await workbench.finishCallsOnTheWire(5_000)).toBe(true);
      expect(workbench.store.getCalls(runId)).toEqual([expect.objectContaining({ status: "rejected", error: { name: "CallRejected", message: "the run was cancelled by tester before this call was sent; nothing was sent" } })]);
      expect(workbench.store.getCalls(runId)[0]!.endedAfterRun).toBeUndefined();
      expect(upstream.requests.filter((r) => r.path === "/items")).toHaveLength(0);
    } finally {
      releaseToken();
      await upstream.close();
    }
  });

  it("a late failure (the API's timeout) is recorded as failed after the run ended", async () => {
    bench = await openTestBench();
    expect(bench.workbench.registry.update("t", { config: { baseUrl: bench.upstream.url, timeoutMs: 500 } }).ok).toBe(true);
    const envelope = await bench.workbench.execute({ code: "async () => { apis.t.slow({ ms: 1500 }); return 1 }", policy: "read_only", source: cli });
    await received(bench, "GET", "/slow/");
    expect(await bench.workbench.finishCallsOnTheWire(10_000)).toBe(true);
    expect(bench.workbench.store.getCalls(envelope.run)[0]).toMatchObject({ status: "failed", endedAfterRun: true, error: { name: "CallFailed", details: { reason: "timeout" } } });
    expect(storedEnvelope(bench, envelope.run).calls[0]).toMatchObject({ status: "failed", note: "failed after the run ended: the program never saw this" });
    expect(storedEnvelope(bench, envelope.run).calls[0]!.answered_after_run_ended).toBeUndefined();
  });

  it("a closing workbench that stops waiting records the call unknown, with why, never in_flight", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({ code: "async () => { apis.t.slow({ ms: 3000 }); return 1 }", policy: "read_only", source: cli });
    await received(bench, "GET", "/slow/");
    const { workbench, dataDir } = bench;
    await workbench.close();
    bench = { ...bench, close: () => bench!.upstream.close() };
    const reopened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY } });
    if (!reopened.ok) throw new Error(reopened.message);
    try {
      const [call] = reopened.workbench.store.getCalls(envelope.run);
      expect(call).toMatchObject({ status: "unknown", error: { name: "CallFailed", details: { reason: "abandoned" } } });
      expect(call!.error!.message).toMatch(/^the workbench is shutting down; the workbench stopped waiting before the upstream answered; the request may have reached it/);
      expect(call!.completionOrder).toBeUndefined();
      expect(reopened.workbench.store.getRun(envelope.run)?.envelope?.calls[0]).toMatchObject({ status: "unknown", note: "outcome unknown, verify before retrying" });
    } finally {
      await reopened.workbench.close();
    }
  });
});

describe("a write that needs a person, started by a program that returns without awaiting it", () => {
  // Which comes first (the program's return, or the call reaching its decision) is a race the program set up;
  // either way the record is whole and consistent: no decision outlives its run, nothing is sent unapproved.
  it("either stops the run for the decision, or is recorded as not sent, with why; never both", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({ code: "async () => { apis.t.createItem({ body: { name: 'x' } }); return 'returned' }", policy: "all", source: cli });
    await bench.workbench.finishCallsOnTheWire(5_000);
    const [call] = bench.workbench.store.getCalls(envelope.run);
    const pending = bench.workbench.store.getPendingDecision(envelope.run);
    expect(bench.count("POST", "/items")).toBe(0);
    if (envelope.status === "pending") {
      expect(call).toMatchObject({ status: "pending" });
      expect(pending).toMatchObject({ callIndex: 0 });
      const decided = await bench.workbench.decide(envelope.run, "approve", "tester");
      expect(decided.ok && decided.envelope).toMatchObject({ status: "completed", result: "returned" });
      await bench.workbench.finishCallsOnTheWire(5_000);
      expect(bench.count("POST", "/items")).toBe(1);
    } else {
      expect(envelope).toMatchObject({ status: "completed", result: "returned" });
      expect(call).toMatchObject({ status: "rejected", error: { name: "CallRejected" } });
      expect(call!.error!.message).toMatch(/(the program finished without waiting for this call's decision|this call needs a person's decision, but the run completed before it could be asked); nothing was sent/);
      expect(pending).toBeUndefined();
      expect(storedEnvelope(bench, envelope.run).calls).toEqual([expect.objectContaining({ status: "rejected" })]);
    }
  });
});
