/**
 * Plan, then apply (issue #15), through a real workbench and a real upstream:
 * a program's writes are forecast (none sent), a person approves the plan
 * once, and apply sends exactly the planned writes with the real values in
 * the places the plan marked; a write that differs from the plan, or goes
 * beyond what was approved, asks for itself alone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Envelope } from "../../../shared/envelope.ts";
import type { RecordingServer } from "../test-support/recording-server.ts";
import { CREATE_THREE_DELETE_FIRST, SHOP_SPEC, startShop } from "../test-support/shop.ts";
import { openTestBench, type TestBench } from "../test-support/workbench.ts";

let bench: TestBench;
let shop: RecordingServer;
beforeAll(async () => {
  bench = await openTestBench();
  shop = await startShop();
  const { result } = bench.workbench.registry.store.ingest(JSON.stringify(SHOP_SPEC));
  if (!result.ok) throw new Error(result.error.message);
  expect(bench.workbench.registry.register("shop", result.artifact, { baseUrl: shop.url }, { kind: "text" }).ok).toBe(true);
});
afterAll(async () => {
  await shop.close();
  await bench.close();
});
beforeEach(() => {
  shop.requests.length = 0;
});

const writes = () => shop.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.url}${r.text ? ` ${r.text}` : ""}`);

async function plan(code: string): Promise<Envelope> {
  const envelope = await bench.workbench.execute({ code, policy: "all", source: { kind: "cli" } });
  expect(envelope.status, JSON.stringify(envelope.error)).toBe("pending");
  return envelope;
}

async function approve(runId: string, writesToApprove?: number): Promise<Envelope> {
  const decided = await bench.workbench.decide(runId, "approve", "person", undefined, writesToApprove);
  if (!decided.ok) throw new Error(decided.message);
  return decided.envelope;
}

describe("plan, then apply", () => {
  it("three creations and a delete by the first creation's id: a plan of four writes, nothing sent; one approval sends exactly four with the real id", async () => {
    const pending = await plan(CREATE_THREE_DELETE_FIRST);
    expect(writes()).toEqual([]);
    const summary = pending.pending?.plan;
    expect(summary).toMatchObject({ writes: 4, operations: [{ api: "shop", operation: "POST /items", count: 3 }, { api: "shop", operation: "DELETE /items/{id}", count: 1 }] });
    expect(summary?.depends).toEqual(["write 4 (DELETE /items/{id}) uses write 1's response (body.id) for id"]);
    const decision = bench.workbench.store.getPendingDecision(pending.run)!;
    expect(decision.plan?.writes.map((w) => w.request.method)).toEqual(["POST", "POST", "POST", "DELETE"]);
    expect(decision.plan?.writes[3]?.dependsOn[0]).toMatchObject({ at: "id", from: { write: 1, path: "body.id" } });

    const done = await approve(pending.run);
    expect(done.status, JSON.stringify(done.pending ?? done.error)).toBe("completed");
    expect(writes()).toEqual(['POST /items {"name":"a"}', 'POST /items {"name":"b"}', 'POST /items {"name":"c"}', `DELETE /items/${(done.result as number[])[0]}`]);
    const calls = bench.workbench.store.getCalls(pending.run);
    expect(calls.map((c) => [c.operation, c.planWrite, c.decision])).toEqual([
      ["POST /items", 1, "approved"], ["POST /items", 2, "approved"], ["POST /items", 3, "approved"], ["DELETE /items/{id}", 4, "approved"],
    ]);
  });

  it("a program whose third write comes out differently at apply (a read changed meanwhile) stops at that write, showing the difference", async () => {
    // The third write's name depends on a read; between the forecast and the apply, the first two writes really
    // happen, so the read answers differently and write 3 is not what the person approved.
    const code = `async () => {
      await apis.shop.createItem({ body: { name: "a" } });
      await apis.shop.createItem({ body: { name: "b" } });
      const { body } = await apis.shop.listItems();
      await apis.shop.createItem({ body: { name: "count " + body.length } });
    }`;
    const before = ((await bench.workbench.execute({ code: "async () => (await apis.shop.listItems()).body.length", policy: "read_only", source: { kind: "cli" } })).result as number);
    const pending = await plan(code);
    expect(pending.pending?.plan?.writes).toBe(3);
    const stopped = await approve(pending.run);
    expect(stopped.status).toBe("pending");
    expect(stopped.pending?.operation).toBe("POST /items");
    expect(stopped.pending?.changes).toEqual([`write 3 differs from the plan: body.name was "count ${before}" in the plan and is now "count ${before + 2}"`]);
    expect(writes()).toEqual(['POST /items {"name":"a"}', 'POST /items {"name":"b"}']);
    await bench.workbench.decide(stopped.run, "deny", "person", "not that one");
  });

  it("approving the first 2 of 4 writes sends those, then asks for write 3 alone", async () => {
    const pending = await plan(CREATE_THREE_DELETE_FIRST);
    const partial = await approve(pending.run, 2);
    expect(partial.status).toBe("pending");
    expect(partial.pending?.changes).toEqual(["this is write 3 of the plan (POST /items); the person approved its first 2"]);
    expect(writes()).toEqual(['POST /items {"name":"a"}', 'POST /items {"name":"b"}']);
    const next = await approve(partial.run);
    expect(next.status).toBe("pending"); // write 4 asks too: past the approved part, per call
    const done = await approve(next.run);
    expect(done.status).toBe("completed");
    expect(writes()).toHaveLength(4);
  });

  it("twenty writes need one decision", async () => {
    const code = `async () => { const ids = []; for (let i = 0; i < 20; i++) ids.push((await apis.shop.createItem({ body: { name: "n" + i } })).body.id); return ids.length; }`;
    const pending = await plan(code);
    expect(pending.pending?.plan?.writes).toBe(20);
    const done = await approve(pending.run);
    expect(done.status).toBe("completed");
    expect(done.result).toBe(20);
    expect(writes()).toHaveLength(20);
  });

  it("a forecast that throws on a forecast value still shows the writes it reached and why it stopped; those can be applied", async () => {
    const code = `async () => {
      const a = await apis.shop.createItem({ body: { name: "x" } });
      if (a.forecast) throw new Error("cannot go on without a real id");
      return a.body.id;
    }`;
    const pending = await plan(code);
    expect(pending.pending?.plan).toMatchObject({ writes: 1, stopped: expect.stringMatching(/^the forecast stopped after 1 write: Error: cannot go on without a real id/) });
    const done = await approve(pending.run);
    expect(done.status).toBe("completed");
    expect(typeof done.result).toBe("number");
  });

  it("per-call approvals (the API's setting) stop at each write as before", async () => {
    const entry = bench.workbench.registry.entry("shop")!;
    bench.workbench.registry.update("shop", { config: { ...entry.config, approvals: "per-call" } });
    try {
      const pending = await plan(CREATE_THREE_DELETE_FIRST);
      expect(pending.pending?.plan).toBeUndefined();
      expect(pending.pending?.operation).toBe("POST /items");
      await bench.workbench.decide(pending.run, "deny", "person");
    } finally {
      bench.workbench.registry.update("shop", { config: entry.config });
    }
  });
});
