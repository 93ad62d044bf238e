/**
 * Every call a program attempts is recorded, whatever becomes of it, through
 * the real sandbox, engine and store: a host call that names no API
 * operation, arguments that could not cross, a failure of the host itself.
 * (Calls started after an attempt halted for a decision are the one exception,
 * by design: the next attempt makes them again and records them then.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { openTestBench, type TestBench } from "../test-support/workbench.ts";

const cli = { kind: "cli" } as const;
let bench: TestBench | undefined;

afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

describe("every attempted call is recorded", () => {
  it("a host call that names no API operation is refused and recorded, and replays from its record after a decision", async () => {
    bench = await openTestBench();
    const code = `async () => {
      let refused;
      try { await __host.call("fetch", { url: "https://example.com" }); } catch (e) { refused = e.name + ": " + e.message; }
      const created = await apis.t.createItem({ body: { name: "after" } });
      return { refused, created: created.status };
    }`;
    const pending = await bench.workbench.execute({ code, policy: "all", source: cli });
    expect(pending.status).toBe("pending");
    expect(bench.workbench.store.getCalls(pending.run)[0]).toMatchObject({
      index: 0,
      api: "",
      operation: "fetch",
      status: "rejected",
      arguments: { url: "https://example.com" },
      error: { name: "CallRejected", message: '"fetch" is not an API call (calls are apis.<api>.<operation>(...)); nothing was sent' },
    });
    const decided = await bench.workbench.decide(pending.run, "approve", "tester");
    expect(decided.ok && decided.envelope).toMatchObject({
      status: "completed",
      result: { refused: 'CallRejected: "fetch" is not an API call (calls are apis.<api>.<operation>(...)); nothing was sent', created: 201 },
    });
    expect(bench.workbench.store.getCalls(pending.run).map((c) => [c.index, c.operation, c.status])).toEqual([[0, "fetch", "rejected"], [1, "POST /items", 201]]);
  });

  it("a failure inside the host (the store refused a write) is recorded with its error id, and the program gets CallFailed", async () => {
    bench = await openTestBench();
    const store = bench.workbench.store;
    // The run's log writes calls with insertCall (no read-back): the first write fails.
    const realInsert = store.insertCall.bind(store);
    let failures = 1;
    store.insertCall = (call) => {
      if (failures-- > 0) throw new Error("disk I/O error (simulated)");
      realInsert(call);
    };
    const envelope = await bench.workbench.execute({ code: "async () => { try { await apis.t.listItems({}); } catch (e) { return [e.name, e.details.reason] } }", policy: "read_only", source: cli });
    expect(envelope.result).toEqual(["CallFailed", "internal"]);
    const [call] = store.getCalls(envelope.run);
    expect(call).toMatchObject({ index: 0, api: "t", operation: "apis.t.listItems", status: "rejected", error: { name: "CallFailed", details: { reason: "internal" } } });
    expect(call!.error!.message).toMatch(/^call 0 could not be handled \(internal error \S+; details in the host log, logs\/host.log in the data directory\)$/);
    expect(bench.count("GET", "/items")).toBe(0);
  });

  it("arguments nested too deep are refused before they cross, and recorded", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({
      code: "async () => { let deep = {}; for (let i = 0; i < 5000; i++) deep = { deep }; try { await apis.t.createItem({ body: deep }); } catch (e) { return e.name } }",
      policy: "all",
      source: cli,
    });
    expect(envelope.result).toBe("CallRejected");
    expect(bench.workbench.store.getCalls(envelope.run)).toEqual([expect.objectContaining({ operation: "apis.t.createItem", status: "rejected", arguments: null })]);
  });
});
