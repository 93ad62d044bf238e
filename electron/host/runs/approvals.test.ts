import { afterEach, describe, expect, it } from "vitest";
import { openTestBench, type TestBench } from "../test-support/workbench.ts";

const cli = { kind: "cli" } as const;
let bench: TestBench;

afterEach(async () => {
  await bench?.close();
});

// Per-call approvals (a setting per API and per face): each write stops its program. Plans are in plans.test.ts.
describe("approvals: a write stops its program until a person decides", () => {
  it("read, write, read: approve → the write is received exactly once and the first read is not re-sent", async () => {
    bench = await openTestBench();
    const code = `async () => {
      const before = await apis.t.listItems({});
      const created = await apis.t.createItem({ body: { name: "first" } });
      const after = await apis.t.listItems({ tag: "x" });
      return { before: before.status, created: created.body, after: after.status };
    }`;
    const pending = await bench.workbench.execute({ code, policy: "all", source: cli, approvals: "per-call" });
    expect(pending.status).toBe("pending");
    expect(pending.pending).toMatchObject({ call: 1, api: "t", operation: "POST /items", method: "POST", arguments: { body: { name: "first" } }, waiting_for: "approval" });
    expect(pending.pending!.url).toBe(`${bench.upstream.url}/items`);
    expect(bench.count("POST", "/items")).toBe(0);
    expect(bench.count("GET", "/items")).toBe(1);

    const decided = await bench.workbench.decide(pending.run, "approve", "tester");
    expect(decided.ok).toBe(true);
    const envelope = decided.ok ? decided.envelope : undefined;
    expect(envelope?.status).toBe("completed");
    expect(envelope?.result).toMatchObject({ before: 200, created: { name: "first" }, after: 200 });
    expect(envelope?.calls.map((c) => [c.operation, c.status, c.decision])).toEqual([
      ["GET /items", 200, "not_needed"],
      ["POST /items", 201, "approved"],
      ["GET /items", 200, "not_needed"],
    ]);
    expect(bench.count("POST", "/items")).toBe(1);
    expect(bench.count("GET", "/items")).toBe(2); // the first read once, the last read once
    const stored = bench.workbench.store.getCalls(pending.run);
    expect(stored[1]).toMatchObject({ decision: "approved", decidedBy: "tester", status: 201 });
  });

  it("deny → the program catches CallDenied with the person's message, and nothing is sent", async () => {
    bench = await openTestBench();
    const code = `async () => {
      try {
        await apis.t.deleteItem({ id: 7 });
        return "deleted";
      } catch (err) {
        return { caught: err.name, message: err.message };
      }
    }`;
    const pending = await bench.workbench.execute({ code, policy: "all", source: cli, approvals: "per-call" });
    const decided = await bench.workbench.decide(pending.run, "deny", "tester", "not that one");
    expect(decided.ok && decided.envelope.result).toEqual({ caught: "CallDenied", message: "A person denied this call: not that one" });
    expect(decided.ok && decided.envelope.calls[0]).toMatchObject({ status: "denied", decision: "denied" });
    expect(bench.count("DELETE", "/items")).toBe(0);
  });

  it("a program with two writes needs two decisions, and each write is sent once", async () => {
    bench = await openTestBench();
    const code = `async () => {
      const a = await apis.t.createItem({ body: { name: "one" } });
      const b = await apis.t.createItem({ body: { name: "two" } });
      return [a.body.name, b.body.name];
    }`;
    const first = await bench.workbench.execute({ code, policy: "all", source: cli, approvals: "per-call" });
    expect(first.pending?.call).toBe(0);
    const second = await bench.workbench.decide(first.run, "approve", "tester");
    expect(second.ok && second.envelope.status).toBe("pending");
    expect(second.ok && second.envelope.pending?.call).toBe(1);
    expect(bench.count("POST", "/items")).toBe(1);
    const done = await bench.workbench.decide(first.run, "approve", "tester");
    expect(done.ok && done.envelope.result).toEqual(["one", "two"]);
    expect(bench.upstream.requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.text).name)).toEqual(["one", "two"]);
  });

  it("approve and always allow: later calls of that operation pass without asking", async () => {
    bench = await openTestBench();
    const code = `async () => (await apis.t.createItem({ body: { name: "ruled" } })).status`;
    const first = await bench.workbench.execute({ code, policy: "all", source: cli, approvals: "per-call" });
    await bench.workbench.decide(first.run, "always", "tester");
    expect(bench.workbench.store.listAllowRules()).toMatchObject([{ api: "t", operationId: "createItem", createdBy: "tester" }]);
    const again = await bench.workbench.execute({ code, policy: "all", source: cli, approvals: "per-call" });
    expect(again.status).toBe("completed");
    expect(again.calls[0]).toMatchObject({ status: 201, decision: "allowed_by_rule" });
    // The rule does not reach other operations.
    const other = await bench.workbench.execute({ code: `async () => apis.t.deleteItem({ id: 1 })`, policy: "all", source: cli, approvals: "per-call" });
    expect(other.status).toBe("pending");
  });

  it("an expired decision ends the run cancelled, with the reason said, and the write never sent", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    bench = await openTestBench({ now: () => now, decisionTtlMs: 60_000 });
    const pending = await bench.workbench.execute({ code: `async () => apis.t.createItem({ body: { name: "late" } })`, policy: "all", source: cli, approvals: "per-call" });
    expect(pending.pending?.expires_at).toBe("2026-01-01T00:01:00.000Z");
    now += 61_000;
    expect(bench.workbench.engine.expireDue()).toEqual([pending.run]);
    const run = bench.workbench.store.getRun(pending.run)!;
    expect(run.status).toBe("cancelled");
    expect(run.envelope?.error).toMatchObject({ reason: "Cancelled" });
    expect(run.envelope?.error?.message).toMatch(/no decision was made before 2026-01-01T00:01:00.000Z/);
    const late = await bench.workbench.decide(pending.run, "approve", "tester");
    expect(late.ok).toBe(false);
    expect(bench.count("POST", "/items")).toBe(0);
  });

  it("--yes approves writes up front and records who did", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({ code: `async () => (await apis.t.createItem({ body: { name: "y" } })).status`, policy: "all", source: cli, preApprovedBy: "cli --yes" });
    expect(envelope.result).toBe(201);
    expect(bench.workbench.store.getCalls(envelope.run)[0]).toMatchObject({ decision: "approved", decidedBy: "cli --yes" });
  });
});

describe("replay", () => {
  it("a Promise.all race over varied latencies replays to the same result, without re-sending the reads", async () => {
    bench = await openTestBench();
    const code = `async () => {
      const order = [];
      await Promise.all([120, 10, 60].map((ms) => apis.t.slow({ ms }).then(() => order.push(ms))));
      const created = await apis.t.createItem({ body: { name: order.join(",") } });
      return { order, name: created.body.name };
    }`;
    const pending = await bench.workbench.execute({ code, policy: "all", source: cli, approvals: "per-call" });
    expect(pending.pending?.arguments).toEqual({ body: { name: "10,60,120" } });
    const decided = await bench.workbench.decide(pending.run, "approve", "tester");
    expect(decided.ok && decided.envelope.result).toEqual({ order: [10, 60, 120], name: "10,60,120" });
    expect(bench.count("GET", "/slow")).toBe(3);
    expect(bench.count("POST", "/items")).toBe(1);
  });

  it("an edited program whose calls differ ends ReplayMismatch with nothing sent", async () => {
    bench = await openTestBench();
    const original = `async () => { await apis.t.listItems({}); return (await apis.t.createItem({ body: { name: "a" } })).status; }`;
    const parent = await bench.workbench.execute({ code: original, policy: "all", source: cli, preApprovedBy: "cli --yes" });
    expect(parent.status).toBe("completed");
    const sentBefore = bench.upstream.requests.length;
    const edited = original.replace('name: "a"', 'name: "b"');
    const child = await bench.workbench.replay(parent.run, { code: edited, source: cli, preApprovedBy: "cli --yes" });
    expect(child.status).toBe("failed");
    expect(child.error).toMatchObject({ reason: "ReplayMismatch" });
    expect(child.error?.message).toMatch(/call 1 is now apis\.t\.createItem/);
    expect(bench.upstream.requests.length).toBe(sentBefore);
    expect(bench.workbench.store.getRun(child.run)?.parentId).toBe(parent.run);
  });

  it("re-running a run replays its saved results where the calls match, and sends only what is new", async () => {
    bench = await openTestBench();
    const parent = await bench.workbench.execute({ code: `async () => (await apis.t.createItem({ body: { name: "once" } })).body.id`, policy: "all", source: cli, preApprovedBy: "cli --yes" });
    const extended = `async () => { const id = (await apis.t.createItem({ body: { name: "once" } })).body.id; const list = await apis.t.listItems({}); return [id, list.status]; }`;
    const child = await bench.workbench.replay(parent.run, { code: extended, source: cli });
    expect(child.status).toBe("completed");
    expect(child.result).toEqual([parent.result, 200]);
    expect(bench.count("POST", "/items")).toBe(1);
    expect(bench.workbench.store.getCalls(child.run).map((c) => [c.operation, c.replayedFrom ?? null])).toEqual([["POST /items", parent.run], ["GET /items", null]]);
    expect(child.calls.map((c) => c.replayed ?? false)).toEqual([true, false]);
    const fresh = await bench.workbench.replay(parent.run, { fresh: true, source: cli, preApprovedBy: "cli --yes" });
    expect(fresh.status).toBe("completed");
    expect(bench.count("POST", "/items")).toBe(2);
  });
});
