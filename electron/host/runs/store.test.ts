import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeRunStore } from "./store.ts";
import { sampleCall, sampleRun, steppingClock, tempDataDir } from "./test-support.ts";

let data: ReturnType<typeof tempDataDir>;
let store: CodeRunStore;
const open = (opts: Parameters<typeof CodeRunStore.open>[1] = {}) => CodeRunStore.open(data.dir, { now: steppingClock().now, ...opts }).store;

beforeEach(() => {
  data = tempDataDir();
  store = open();
});
afterEach(() => {
  store.close();
  data.remove();
});

describe("runs", () => {
  it("creates a run as running, with the clock's time, and reads it back", () => {
    const run = store.createRun(sampleRun({ id: "run_a" }));
    expect(run).toEqual({
      id: "run_a",
      source: { kind: "mcp", client: "claude-code 2.1.0" },
      tool: "execute",
      policy: "all",
      program: sampleRun().program,
      clock: Date.UTC(2025, 0, 1),
      seed: 42,
      status: "running",
      logs: [],
      apis: [],
      createdAt: "2025-01-01T00:00:01.000Z",
      updatedAt: "2025-01-01T00:00:01.000Z",
    });
    expect(store.getRun("run_a")).toEqual(run);
    expect(store.getRun("run_missing")).toBeUndefined();
  });

  it("generates distinct ids when none is given", () => {
    const ids = new Set(Array.from({ length: 20 }, () => store.createRun(sampleRun()).id));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^run_[0-9a-z]+$/);
  });

  it("patches status, envelope, logs and failure; a final status sets finishedAt", () => {
    const run = store.createRun(sampleRun());
    const envelope = { run: run.id, status: "failed" as const, calls: [], logs: ["a"], error: { reason: "Timeout" as const, name: "Timeout", message: "too slow" } };
    expect(store.updateRun(run.id, { status: "failed", failureReason: "Timeout", envelope, logs: ["a"] })).toBe(true);
    const after = store.getRun(run.id)!;
    expect(after).toMatchObject({ status: "failed", failureReason: "Timeout", envelope, logs: ["a"] });
    expect(after.finishedAt).toBeDefined();
    expect(after.updatedAt > run.updatedAt).toBe(true);

    store.updateRun(run.id, { failureReason: null, envelope: null });
    expect(store.getRun(run.id)).not.toHaveProperty("failureReason");
    expect(store.getRun(run.id)).not.toHaveProperty("envelope");
    expect(store.updateRun("run_missing", { status: "cancelled" })).toBe(false);
  });

  it("links a run to its parent and rejects a parent that does not exist", () => {
    const parent = store.createRun(sampleRun());
    expect(store.createRun(sampleRun({ parentId: parent.id })).parentId).toBe(parent.id);
    expect(() => store.createRun(sampleRun({ parentId: "run_nope" }))).toThrow(/FOREIGN KEY/);
  });

  it("keeps everything across close and reopen", () => {
    const run = store.createRun(sampleRun({ source: { kind: "ui" } }));
    store.recordCall(sampleCall(run.id, 0));
    store.finishCall(run.id, 0, { status: 200, result: { status: 200, body: [1] } });
    store.updateRun(run.id, { status: "completed", logs: ["done"] });
    store.addAllowRule({ api: "petstore", operationId: "createPet", createdBy: "ui" });
    const before = { run: store.getRun(run.id), calls: store.getCalls(run.id) };
    store.close();

    store = open();
    expect({ run: store.getRun(run.id), calls: store.getCalls(run.id) }).toEqual(before);
    expect(store.isAllowed("petstore", "createPet")).toBe(true);
  });
});

describe("calls", () => {
  it("records a call before sending and finishes it with the answer", () => {
    const run = store.createRun(sampleRun());
    const recorded = store.recordCall(sampleCall(run.id, 0, { idempotencyKey: "k1" }));
    expect(recorded).toMatchObject({ index: 0, status: "in_flight", idempotencyKey: "k1" });
    expect(recorded).not.toHaveProperty("completionOrder");
    expect(recorded).not.toHaveProperty("finishedAt");

    const response = { status: 201, headers: { "content-type": "application/json" }, body: '{"id":1}' };
    const finished = store.finishCall(run.id, 0, { status: 201, response, result: { status: 201, body: { id: 1 } }, durationMs: 12.5 });
    expect(finished).toMatchObject({ status: 201, response, result: { status: 201, body: { id: 1 } }, durationMs: 12.5, completionOrder: 0 });
    expect(finished!.finishedAt).toBeDefined();
    expect(store.getRun(run.id)!.apis).toEqual(["petstore"]);
    expect(store.finishCall(run.id, 9, { status: 200 })).toBeUndefined();
  });

  it("numbers completions in the order calls settle, not the order they started", () => {
    const run = store.createRun(sampleRun());
    for (const i of [0, 1, 2]) store.recordCall(sampleCall(run.id, i));
    store.finishCall(run.id, 2, { status: 200 });
    store.finishCall(run.id, 0, { status: "failed", error: { name: "CallFailed", message: "reset" } });
    store.finishCall(run.id, 1, { status: 200 });
    store.finishCall(run.id, 1, { durationMs: 5 }); // a later patch does not renumber
    expect(store.getCalls(run.id).map((c) => [c.index, c.completionOrder])).toEqual([[0, 1], [1, 2], [2, 0]]);
  });

  it("keeps a pending call open until decided, then numbers it", () => {
    const run = store.createRun(sampleRun());
    store.recordCall(sampleCall(run.id, 0, { status: 200 }));
    store.recordCall(sampleCall(run.id, 1, { operation: "POST /pets", operationId: "createPet", status: "pending" }));
    expect(store.getCall(run.id, 0)!.completionOrder).toBe(0); // recorded already settled
    expect(store.getCall(run.id, 1)!.completionOrder).toBeUndefined();
    store.finishCall(run.id, 1, { status: "denied", decision: "denied", decidedBy: "ui", decidedAt: "2025-01-01T01:00:00.000Z", denyMessage: "not today" });
    expect(store.getCall(run.id, 1)).toMatchObject({ status: "denied", decision: "denied", decidedBy: "ui", denyMessage: "not today", completionOrder: 1 });
  });

  it("refuses a second call at the same index and a call for a run that does not exist", () => {
    const run = store.createRun(sampleRun());
    store.recordCall(sampleCall(run.id, 0));
    expect(() => store.recordCall(sampleCall(run.id, 0))).toThrow(/UNIQUE/);
    expect(() => store.recordCall(sampleCall("run_nope", 0))).toThrow(/FOREIGN KEY/);
  });

  it("caps stored bodies at maxBodyBytes and says so, but never caps the result replay needs", () => {
    store.close();
    store = open({ maxBodyBytes: 100 });
    const run = store.createRun(sampleRun());
    store.recordCall(sampleCall(run.id, 0, { request: { method: "POST", url: "https://x.example/", headers: {}, body: "b".repeat(150) } }));
    const big = "r".repeat(1000);
    store.finishCall(run.id, 0, { status: 200, response: { status: 200, headers: {}, body: big }, result: { status: 200, body: big } });
    const call = store.getCall(run.id, 0)!;
    expect(call.request).toMatchObject({ body: "b".repeat(100), truncated: true, bodyBytes: 150 });
    expect(call.response).toMatchObject({ body: "r".repeat(100), truncated: true, bodyBytes: 1000 });
    expect(call.result).toEqual({ status: 200, body: big });
  });

  it("deletes unsent calls from an index for a replay, and keeps every call that may have been sent", () => {
    const run = store.createRun(sampleRun());
    store.recordCall(sampleCall(run.id, 0, { status: 200 }));
    store.recordCall(sampleCall(run.id, 1, { status: "pending" }));
    store.recordCall(sampleCall(run.id, 2, { status: 200 }));
    store.recordCall(sampleCall(run.id, 3, { status: "rejected" }));
    store.recordCall(sampleCall(run.id, 4, { status: "in_flight" }));
    store.recordCall(sampleCall(run.id, 5, { status: "denied" }));
    expect(store.deleteCallsFrom(run.id, 1)).toEqual({ deleted: [1, 3, 5], keptSent: [2, 4] });
    expect(store.getCalls(run.id).map((c) => c.index)).toEqual([0, 2, 4]);
    store.recordCall(sampleCall(run.id, 1, { status: "in_flight" })); // the replay's own attempt at index 1
    expect(store.getCall(run.id, 1)!.status).toBe("in_flight");
  });

  it("groups writes in a transaction that rolls back as a whole", () => {
    const run = store.createRun(sampleRun());
    expect(() =>
      store.transaction(() => {
        store.recordCall(sampleCall(run.id, 0));
        store.updateRun(run.id, { status: "pending" });
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(store.getCalls(run.id)).toEqual([]);
    expect(store.getRun(run.id)!.status).toBe("running");
  });
});

describe("allow rules", () => {
  it("adds (idempotently), lists, answers isAllowed, and removes", () => {
    const first = store.addAllowRule({ api: "petstore", operationId: "createPet", createdBy: "ui" });
    expect(store.addAllowRule({ api: "petstore", operationId: "createPet", createdBy: "cli" })).toEqual(first);
    store.addAllowRule({ api: "github", operationId: "POST /repos/{owner}/{repo}/issues", createdBy: "cli" });
    expect(store.listAllowRules().map((r) => `${r.api}:${r.operationId}:${r.createdBy}`)).toEqual([
      "github:POST /repos/{owner}/{repo}/issues:cli",
      "petstore:createPet:ui",
    ]);
    expect(store.isAllowed("petstore", "createPet")).toBe(true);
    expect(store.isAllowed("petstore", "deletePet")).toBe(false);
    expect(store.isAllowed("other", "createPet")).toBe(false);
    expect(store.removeAllowRule("petstore", "createPet")).toBe(true);
    expect(store.removeAllowRule("petstore", "createPet")).toBe(false);
    expect(store.isAllowed("petstore", "createPet")).toBe(false);
  });
});

describe("pending decisions", () => {
  const decisionFor = (runId: string, requestedAt: string) => ({
    runId,
    callIndex: 0,
    api: "petstore",
    operation: "POST /pets",
    operationId: "createPet",
    request: { method: "POST", url: "https://petstore.example/v1/pets", headers: { authorization: "⟦hidden:petstore/token⟧" }, body: '{"name":"Rex"}' },
    arguments: { body: { name: "Rex" } },
    argumentsHash: "abc",
    requestedBy: { kind: "mcp" as const, client: "cursor 1.0" },
    requestedAt,
    expiresAt: "2025-01-02T00:00:00.000Z",
  });

  it("puts, reads, lists oldest first, replaces and deletes", () => {
    const a = store.createRun(sampleRun());
    const b = store.createRun(sampleRun());
    for (const run of [a, b]) store.recordCall(sampleCall(run.id, 0, { status: "pending" }));
    store.putPendingDecision(decisionFor(a.id, "2025-01-01T10:00:00.000Z"));
    store.putPendingDecision(decisionFor(b.id, "2025-01-01T09:00:00.000Z"));
    expect(store.getPendingDecision(a.id)).toEqual(decisionFor(a.id, "2025-01-01T10:00:00.000Z"));
    expect(store.listPendingDecisions().map((d) => d.runId)).toEqual([b.id, a.id]);

    store.putPendingDecision({ ...decisionFor(a.id, "2025-01-01T11:00:00.000Z"), argumentsHash: "def" });
    expect(store.getPendingDecision(a.id)!.argumentsHash).toBe("def");
    expect(store.listPendingDecisions()).toHaveLength(2);

    expect(store.deletePendingDecision(a.id)).toBe(true);
    expect(store.deletePendingDecision(a.id)).toBe(false);
    expect(store.getPendingDecision(a.id)).toBeUndefined();
  });

  it("needs the waiting call to be recorded, and goes when that call is discarded", () => {
    const run = store.createRun(sampleRun());
    expect(() => store.putPendingDecision(decisionFor(run.id, "2025-01-01T10:00:00.000Z"))).toThrow(/FOREIGN KEY/);
    store.recordCall(sampleCall(run.id, 0, { status: "pending" }));
    store.putPendingDecision(decisionFor(run.id, "2025-01-01T10:00:00.000Z"));
    store.deleteCallsFrom(run.id, 0);
    expect(store.getPendingDecision(run.id)).toBeUndefined();
  });
});

describe("late answers, cancel requests, the APIs a run used (schema 6)", () => {
  it("a call ending after its run says so; an unknown call gets no completion order, so replay never hands it back", () => {
    const run = store.createRun(sampleRun());
    store.recordCall(sampleCall(run.id, 0, { status: "in_flight" }));
    store.recordCall(sampleCall(run.id, 1, { status: "in_flight" }));
    expect(store.finishCall(run.id, 1, { status: 200, endedAfterRun: true })).toMatchObject({ status: 200, endedAfterRun: true, completionOrder: 0 });
    expect(store.finishCall(run.id, 0, { status: "unknown" })).toMatchObject({ status: "unknown" });
    expect(store.getCall(run.id, 0)!.completionOrder).toBeUndefined();
    expect(store.getCall(run.id, 0)!.finishedAt).toBeDefined();
    expect(store.getCall(run.id, 0)!.endedAfterRun).toBeUndefined();
  });

  it("a cancel request is stored only for a running run, taken once by its owner, and gone with an interruption", () => {
    const running = store.createRun(sampleRun());
    const done = store.createRun(sampleRun({ status: "completed" }));
    expect(store.requestCancel(done.id, "cli")).toBe(false);
    expect(store.requestCancel(running.id, "cli")).toBe(true);
    expect(store.getCancelRequest(running.id)).toMatchObject({ runId: running.id, requestedBy: "cli" });
    expect(store.takeCancelRequests([done.id])).toEqual([]);
    expect(store.takeCancelRequests([running.id, done.id])).toEqual([expect.objectContaining({ runId: running.id, requestedBy: "cli" })]);
    expect(store.takeCancelRequests([running.id])).toEqual([]);

    // A request left for an owner that died: recovery drops it with the run's interruption.
    store.requestCancel(running.id, "ui");
    const other = open({ isProcessAlive: () => false });
    try {
      store.close();
      expect(other.recoverAfterCrash().interruptedRuns).toEqual([running.id]);
      expect(other.getCancelRequest(running.id)).toBeUndefined();
    } finally {
      other.close();
      store = open();
    }
  });

  it("keeps each API's definition as the run last used it", () => {
    const run = store.createRun(sampleRun());
    const definition = { name: "alerts", specHash: "abc", oneOff: true, baseUrl: "http://127.0.0.1:9", config: { validate: "strict" as const, maxResponseBytes: 1, timeoutMs: 1, passthroughHeaders: [], responseHeaders: [] } };
    store.recordRunApi(run.id, definition);
    store.recordRunApi(run.id, { ...definition, baseUrl: "http://127.0.0.1:10" });
    store.recordRunApi(run.id, { ...definition, name: "pets", oneOff: false });
    expect(store.getRunApis(run.id)).toEqual([{ ...definition, baseUrl: "http://127.0.0.1:10" }, { ...definition, name: "pets", oneOff: false }]);
  });
});
