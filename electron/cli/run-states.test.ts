/**
 * Texts match states, on every face, for every run state and the call states
 * each can hold: `workbench runs show` and `runs list`, MCP's get_code_run
 * (runView), and the words the app's run view, console and history use
 * (shared/run-states.ts). For each state the test asserts what each face says,
 * that no face offers an action the state refuses, and that the actions it
 * offers work (approve a waiting run) while those it does not are refused.
 *
 * States that a live engine only passes through (running, interrupted after a
 * decision, a stale pending) are written into a real store as a crash or
 * another process would have left them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../shared/envelope.ts";
import { callState, runState, type RunAction } from "../../shared/run-states.ts";
import { main } from "../cli.ts";
import type { CliIo } from "./io.ts";
import { openTestBench, TEST_VAULT_KEY, type TestBench } from "../host/test-support/workbench.ts";
import { runView } from "../host/tools/run-view.ts";

const cli = { kind: "cli" } as const;
let bench: TestBench;

beforeAll(async () => {
  bench = await openTestBench();
});
afterAll(async () => {
  await bench.close();
});

async function workbench(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => "", env: { WORKBENCH_DATA_DIR: bench.dataDir, WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, exit: () => {} };
  const code = await main(argv, io);
  return { code, out, err };
}

const WRITE = "async () => { const r = await apis.t.listItems({}); const c = await apis.t.createItem({ body: { name: 'n' } }); return [r.status, c.status] }";

/** A run stopped for a decision, by the real engine. */
async function pendingRun(): Promise<string> {
  const envelope = await bench.workbench.execute({ code: WRITE, policy: "all", source: cli });
  expect(envelope.status).toBe("pending");
  return envelope.run;
}

/** As a decision leaves it when the process that took it dies before the approved write is sent: interrupted, the envelope still the pending one. */
async function interruptedAfterApproval(): Promise<string> {
  const runId = await pendingRun();
  const store = bench.workbench.store;
  store.transaction(() => {
    store.deletePendingDecision(runId);
    store.finishCall(runId, 1, { decision: "approved", decidedBy: "cli", decidedAt: new Date().toISOString() });
    store.updateRun(runId, { status: "interrupted" });
  });
  return runId;
}

function rawRun(status: "running" | "completed" | "failed" | "cancelled" | "pending", calls: Parameters<TestBench["workbench"]["store"]["recordCall"]>[0]["status"][], envelope?: (runId: string) => Envelope, extra: Record<string, unknown>[] = []): string {
  const store = bench.workbench.store;
  const run = store.createRun({ source: cli, tool: "execute", policy: "all", program: "async () => 'raw'", clock: 0, seed: 1, status: "running" });
  calls.forEach((status, index) => store.recordCall({ runId: run.id, index, api: "t", operation: "GET /items", arguments: {}, argumentsHash: `h${index}`, status, ...(extra[index] ?? {}) }));
  const failureReason = status === "failed" ? "Timeout" : status === "cancelled" ? "Cancelled" : undefined;
  store.updateRun(run.id, { status, ...(failureReason ? { failureReason } : {}), ...(envelope ? { envelope: envelope(run.id) } : {}) });
  return run.id;
}

const failedEnvelope = (reason: "Timeout" | "Cancelled", message: string) => (runId: string): Envelope => ({ run: runId, status: "failed", calls: [], logs: [], error: { reason, name: reason, message } });

interface Row {
  state: string;
  build(): Promise<string> | string;
  headline: RegExp;
  actions: RunAction[];
  /** Each call's line in `runs show`, in order. */
  calls: RegExp[];
  /** What get_code_run answers: its status, and a phrase it contains. */
  mcp: { status: string; says: RegExp };
}

const ROWS: Row[] = [
  {
    state: "running (its first attempt)",
    build: () => rawRun("running", [200, "in_flight"]),
    headline: /^running$/,
    actions: ["cancel"],
    calls: [/^ {2}0\. GET \/items {2}200$/, /^ {2}1\. GET \/items {2}in flight$/],
    mcp: { status: "running", says: /The run is running/ },
  },
  {
    state: "running again after a decision (the stored envelope is still the pending one)",
    build: async () => {
      const runId = await pendingRun();
      const store = bench.workbench.store;
      store.deletePendingDecision(runId);
      store.finishCall(runId, 1, { decision: "approved", decidedBy: "cli" });
      store.updateRun(runId, { status: "running" });
      return runId;
    },
    headline: /^running$/,
    actions: ["cancel"],
    calls: [/^ {2}0\. GET \/items {2}200 {2}\d+ ms$/, /^ {2}1\. POST \/items {2}approved {2}approved by cli {2}\(approved; being sent\)$/],
    mcp: { status: "running", says: /The run is running/ },
  },
  {
    // A write under the write-capable tool begins a plan (here of one write).
    state: "pending, waiting for a person",
    build: pendingRun,
    headline: /^waiting for a person's decision on a plan of 1 write \(the first is call 1: POST http:\/\/127\.0\.0\.1:\d+\/items\)$/,
    actions: ["approve", "deny", "cancel"],
    calls: [/^ {2}0\. GET \/items {2}200/, /^ {2}1\. POST \/items {2}waiting for a decision {2}\(not sent\)$/],
    mcp: { status: "pending", says: /a person approves the whole plan/ },
  },
  {
    state: "pending, but its decision is gone",
    build: () => rawRun("pending", ["pending"], (runId) => ({ run: runId, status: "pending", calls: [], logs: [] })),
    headline: /^pending, but no decision waits any more/,
    actions: ["cancel"],
    calls: [/^ {2}0\. GET \/items {2}not sent {2}\(no decision was made before the run stopped\)$/],
    mcp: { status: "pending", says: /no decision waits any more.*a person can cancel it/ },
  },
  {
    state: "completed, with a call answered after the run ended",
    build: () => rawRun("completed", [200, 200], (runId) => ({ run: runId, status: "completed", calls: [], logs: [], result: "ok" }), [{}, { endedAfterRun: true }]),
    headline: /^completed$/,
    actions: [],
    calls: [/^ {2}0\. GET \/items {2}200$/, /^ {2}1\. GET \/items {2}200 {2}\(answered after the run ended: the program never saw this answer\)$/],
    mcp: { status: "completed", says: /"result":"ok"/ },
  },
  {
    state: "completed, with a call still on the wire after the run ended",
    build: () => rawRun("completed", ["in_flight"], (runId) => ({ run: runId, status: "completed", calls: [], logs: [], result: 1 })),
    headline: /^completed$/,
    actions: [],
    calls: [/^ {2}0\. GET \/items {2}in flight {2}\(no answer yet after the run ended; it is recorded when it comes\)$/],
    mcp: { status: "completed", says: /"result":1/ },
  },
  {
    state: "failed (Timeout), its call's outcome unknown",
    build: () => rawRun("failed", ["unknown"], failedEnvelope("Timeout", "the run took longer than 300 ms of wall-clock time")),
    headline: /^failed \(Timeout\): the run took longer than 300 ms of wall-clock time$/,
    actions: [],
    calls: [/^ {2}0\. GET \/items {2}unknown {2}\(sent, but its outcome is unknown: verify before retrying \(never re-sent by itself\)\)$/],
    mcp: { status: "failed", says: /"reason":"Timeout"/ },
  },
  {
    state: "cancelled by a person",
    build: () => rawRun("cancelled", ["denied"], failedEnvelope("Cancelled", "cancelled by cli while waiting for a decision"), [{ decision: "denied", decidedBy: "cli" }]),
    headline: /^cancelled \(cancelled by cli while waiting for a decision\)$/,
    actions: [],
    calls: [/^ {2}0\. GET \/items {2}denied {2}denied by cli {2}\(denied by cli; not sent\)$/],
    mcp: { status: "failed", says: /"reason":"Cancelled"/ },
  },
  {
    state: "cancelled because its decision expired",
    build: () => rawRun("cancelled", ["denied"], failedEnvelope("Cancelled", "no decision was made before 2025-01-01T00:30:00.000Z; the waiting call was not sent"), [{ decision: "expired", decidedBy: "expiry" }]),
    headline: /^cancelled \(no decision was made before .*; the waiting call was not sent\)$/,
    actions: [],
    calls: [/^ {2}0\. GET \/items {2}expired {2}expired by expiry {2}\(no decision was made in time; not sent\)$/],
    mcp: { status: "failed", says: /"reason":"Cancelled"/ },
  },
  {
    state: "interrupted after an approval (the stored envelope is still the pending one)",
    build: interruptedAfterApproval,
    headline: /^interrupted: the workbench stopped while this run was running$/,
    actions: [],
    calls: [/^ {2}0\. GET \/items {2}200/, /^ {2}1\. POST \/items {2}not sent {2}approved by cli {2}\(approved, but the run stopped before it was sent\)$/],
    mcp: { status: "failed", says: /"name":"Interrupted".*Calls marked unknown may have reached the API/ },
  },
];

describe("every face words every run state the same way, and offers only what works", () => {
  for (const row of ROWS) {
    it(row.state, async () => {
      const runId = await row.build();
      const store = bench.workbench.store;
      const run = store.getRun(runId)!;
      const pending = store.getPendingDecision(runId);

      // The words the app uses (RunDetailPanel, CallTimeline, RunConsole) and that the CLI and MCP share.
      const state = runState(run, pending);
      expect(state.headline).toMatch(row.headline);
      expect(state.actions).toEqual(row.actions);

      // workbench runs show
      const shown = await workbench(["runs", "show", runId]);
      expect(shown.code).toBe(0);
      expect(shown.out).toContain(`state: ${state.headline}\n`);
      const callLines = shown.out.split("\n").filter((l) => /^ {2}\d+\. /.test(l));
      expect(callLines).toHaveLength(row.calls.length);
      row.calls.forEach((pattern, i) => expect(callLines[i]).toMatch(pattern));
      for (const call of store.getCalls(runId)) expect(callLines[call.index]).toContain(`  ${callState(call, run.status, pending?.callIndex).label}`);
      expect(shown.out.includes(`workbench approve ${runId}`)).toBe(row.actions.includes("approve"));
      expect(shown.out.includes(`workbench deny ${runId}`)).toBe(row.actions.includes("deny"));
      expect(shown.out.includes(`workbench runs cancel ${runId}`)).toBe(row.actions.includes("cancel"));
      if (!row.actions.includes("approve")) expect(shown.out).not.toMatch(/waiting for a person's decision|decide with/);

      // workbench runs list: the status as stored, with the failure reason.
      const listed = await workbench(["runs", "list"]);
      expect(listed.out).toMatch(new RegExp(`^${runId}  ${run.status}${run.failureReason ? ` \\(${run.failureReason}\\)` : ""} `, "m"));

      // get_code_run
      const view = JSON.stringify(runView(store, runId, 6000));
      expect(JSON.parse(view).status).toBe(row.mcp.status);
      expect(view).toMatch(row.mcp.says);
      expect(view.includes("workbench approve")).toBe(row.actions.includes("approve"));

      // What is offered works; what is not is refused.
      if (row.actions.includes("approve")) {
        const approved = await workbench(["approve", runId]);
        expect(approved.code, approved.err).toBe(0);
        expect(JSON.parse(approved.out)).toMatchObject({ status: "completed", result: [200, 201] });
      } else {
        const refused = await workbench(["approve", runId]);
        expect(refused.code).toBe(1);
        expect(refused.err).toMatch(new RegExp(`^error: run ${runId} is (${run.status}, not waiting for a decision|still finishing)`));
      }
    });
  }

  it("a pending run whose decision is gone is ended by the cancel it offers", async () => {
    const runId = rawRun("pending", ["pending"], (id) => ({ run: id, status: "pending", calls: [], logs: [] }));
    const cancelled = await workbench(["runs", "cancel", runId]);
    expect(cancelled).toMatchObject({ code: 0, out: `run ${runId} cancelled\n` });
    expect(bench.workbench.store.getRun(runId)).toMatchObject({ status: "cancelled" });
    expect((await workbench(["runs", "show", runId])).out).toContain("state: cancelled (cancelled by cli; no decision was waiting any more)\n");
  });
});
