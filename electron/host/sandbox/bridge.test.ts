/**
 * The guest bridge: async host calls (JSON copies both ways, concurrency,
 * failures, the call limit, suspension) and synchronous dataset reads.
 */
import { afterAll, describe, expect, it } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { SandboxPool } from "./pool.ts";
import type { Dataset, RunOutcome } from "./types.ts";

const logged: string[] = [];
const pool = new SandboxPool({ size: 2, log: (m) => logged.push(m) });
afterAll(() => pool.close());

function resultOf(outcome: RunOutcome) {
  if (outcome.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

describe("host calls", () => {
  it("copies arguments out and answers in as JSON", async () => {
    const seen: unknown[] = [];
    const outcome = await pool.run({
      code: "const a = await __host.call('first', { n: 1, when: new Date(0), big: 3n, tags: new Set(['x']) });\nconst b = await __host.call('second');\nreturn [a, b]",
      onCall: async (call) => {
        seen.push(call);
        return { ok: true, value: { got: call.args } };
      },
    });
    expect(resultOf(outcome)).toEqual([{ got: { n: 1, when: "1970-01-01T00:00:00.000Z", big: "3", tags: ["x"] } }, { got: null }]);
    expect(seen).toEqual([
      { index: 0, name: "first", args: { n: 1, when: "1970-01-01T00:00:00.000Z", big: "3", tags: ["x"] } },
      { index: 1, name: "second", args: null },
    ]);
    expect(outcome.calls).toBe(2);
  });

  it("runs getters, toJSON and proxy traps inside the guest only: the host receives plain data", async () => {
    const received: unknown[] = [];
    const outcome = await pool.run({
      code: `
        let reads = 0;
        const tricky = {
          get counter() { reads++; return reads },
          nested: { toJSON() { return { replaced: true } } },
          proxied: new Proxy({}, { ownKeys: () => ['trap'], getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }), get: () => 'from trap' }),
        };
        await __host.call('inspect', tricky);
        return reads`,
      onCall: async ({ args }) => {
        received.push(args);
        return { ok: true, value: null };
      },
    });
    expect(resultOf(outcome)).toBe(1);
    expect(received).toEqual([{ counter: 1, nested: { replaced: true }, proxied: { trap: "from trap" } }]);
    const args = received[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(args, "counter")).toHaveProperty("value", 1);
  });

  it("a replaced JSON.stringify inside the guest does not change what the host receives", async () => {
    const received: unknown[] = [];
    await pool.run({
      code: "JSON.stringify = () => '{\"hijacked\":true}'; await __host.call('x', { honest: 1 })",
      onCall: async ({ args }) => {
        received.push(args);
        return { ok: true, value: null };
      },
    });
    expect(received).toEqual([{ honest: 1 }]);
  });

  it("a rejected call throws an Error with the handler's name, message and details, which the program can catch", async () => {
    const outcome = await pool.run({
      code: "try { await __host.call('pets.create', {}) } catch (e) { return [e instanceof Error, e.name, e.message, e.details] }",
      onCall: async () => ({ ok: false, error: { name: "CallDenied", message: "a person said no", details: { call: 0 } } }),
    });
    expect(resultOf(outcome)).toEqual([true, "CallDenied", "a person said no", { call: 0 }]);
  });

  it("a handler that throws reaches the guest as a fixed message; the detail goes only to the log", async () => {
    logged.length = 0;
    const outcome = await pool.run({
      code: "try { await __host.call('leaky', {}) } catch (e) { return e.name + ': ' + e.message }",
      onCall: async () => {
        throw new Error("token sk-secret-123 rejected by upstream");
      },
    });
    expect(resultOf(outcome)).toBe("Error: host call failed");
    expect(JSON.stringify(outcome)).not.toContain("sk-secret");
    expect(logged.join("\n")).toContain("sk-secret-123");
  });

  it("an answer that is not JSON is a failed call, not a crash", async () => {
    const outcome = await pool.run({
      code: "try { await __host.call('bad', {}) } catch (e) { return e.message }",
      onCall: async () => ({ ok: true, value: { big: 1n } as never }),
    });
    expect(resultOf(outcome)).toBe("host call failed");
  });

  it("without a handler every call fails clearly", async () => {
    const outcome = await pool.run({ code: "try { await __host.call('x', 1) } catch (e) { return e.message }" });
    expect(resultOf(outcome)).toBe("no host functions are available in this run");
  });

  it("Promise.all dispatches host calls concurrently", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const outcome = await pool.run({
      code: "return await Promise.all(Array.from({ length: 10 }, (_, i) => __host.call('slow', i)))",
      onCall: async ({ args }) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(50);
        inFlight--;
        return { ok: true, value: (args as number) * 2 };
      },
    });
    expect(resultOf(outcome)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(maxInFlight).toBe(10);
  });

  it("answers arriving out of order settle the right promises", async () => {
    const outcome = await pool.run({
      code: "return await Promise.all([__host.call('a', 30), __host.call('b', 1), __host.call('c', 15)])",
      onCall: async ({ name, args }) => {
        await sleep(args as number);
        return { ok: true, value: name };
      },
    });
    expect(resultOf(outcome)).toEqual(["a", "b", "c"]);
  });

  it("1,000 calls against a limit of 100 end the run with CallLimit, even when the program catches", async () => {
    let handled = 0;
    const outcome = await pool.run({
      code: "for (let i = 0; i < 1000; i++) { try { await __host.call('tick', i) } catch {} } return 'finished'",
      limits: { maxCalls: 100 },
      onCall: async () => {
        handled++;
        return { ok: true, value: null };
      },
    });
    expect(outcome.status).toBe("failed");
    if (outcome.status === "failed") expect(outcome.error).toMatchObject({ reason: "CallLimit", name: "CallLimit" });
    expect(handled).toBe(100);
    expect(outcome.calls).toBe(100);
  });

  it("a suspending answer ends the run at once with the waiting call's index", async () => {
    const outcome = await pool.run({
      code: "await __host.call('read', 1); await __host.call('write', 2); return 'not reached'",
      onCall: async ({ name }) => (name === "write" ? { suspend: true } : { ok: true, value: null }),
    });
    expect(outcome).toMatchObject({ status: "suspended", callIndex: 1, calls: 2 });
    expect(resultOf(await pool.run({ code: "return 'next run fine'" }))).toBe("next run fine");
  });

  it("a call still in flight keeps the run alive: not a deadlock", async () => {
    const outcome = await pool.run({
      code: "const slow = __host.call('slow'); await null; await null; return await slow",
      onCall: async () => {
        await sleep(30);
        return { ok: true, value: "eventually" };
      },
    });
    expect(resultOf(outcome)).toBe("eventually");
  });
});

describe("datasets", () => {
  const reader = new URL("./fixtures/list-reader.ts", import.meta.url).href;
  const listDataset = (key: string, items: unknown[], loads: { count: number }): Dataset => ({
    key,
    reader,
    load: async () => {
      loads.count++;
      return JSON.stringify({ items });
    },
  });

  it("answers __host.read synchronously from the dataset's reader", async () => {
    const loads = { count: 0 };
    const outcome = await pool.run({
      code: "return [__host.read('pets', { op: 'count' }), __host.read('pets', { op: 'get', index: 1 }), __host.read('pets', { op: 'nope' })]",
      datasets: { pets: listDataset("pets-v1", ["cat", "dog", "eel"], loads) },
    });
    expect(resultOf(outcome)).toEqual([3, "dog", { error: "unknown op nope" }]);
  });

  it("loads a dataset once per worker per key", async () => {
    const single = new SandboxPool({ size: 1 });
    try {
      const loads = { count: 0 };
      const datasets = { pets: listDataset("pets-once", [1, 2], loads) };
      for (let i = 0; i < 5; i++) expect(resultOf(await single.run({ code: "return __host.read('pets', { op: 'count' })", datasets }))).toBe(2);
      expect(loads.count).toBe(1);
      const other = { pets: listDataset("pets-changed", [1, 2, 3], loads) };
      expect(resultOf(await single.run({ code: "return __host.read('pets', { op: 'count' })", datasets: other }))).toBe(3);
      expect(loads.count).toBe(2);
    } finally {
      await single.close();
    }
  });

  it("a reader that throws is a catchable error in the guest; the detail stays on the host", async () => {
    logged.length = 0;
    const outcome = await pool.run({
      code: "try { __host.read('pets', { op: 'throw' }) } catch (e) { return e.message }",
      datasets: { pets: listDataset("pets-throw", [], { count: 0 }) },
    });
    expect(resultOf(outcome)).toBe('__host.read: reading dataset "pets" failed');
    expect(logged.join("\n")).toContain("reader detail that must stay on the host");
  });

  it("reading an unknown dataset is a clear error", async () => {
    const outcome = await pool.run({ code: "try { __host.read('nope', 1) } catch (e) { return e.message }" });
    expect(resultOf(outcome)).toBe('__host.read: no dataset named "nope" in this run');
  });

  it("a dataset that cannot load, is not JSON, or has no reader fails the run as Unavailable", async () => {
    const failing: Dataset = { key: "broken-load", reader, load: () => Promise.reject(new Error("disk gone")) };
    const notJson: Dataset = { key: "broken-json", reader, load: () => "{not json" };
    const noReader: Dataset = { key: "no-reader", reader: new URL("./fixtures/not-a-reader.ts", import.meta.url).href, load: () => "{}" };
    for (const [dataset, message] of [
      [failing, 'dataset "d" could not be loaded'],
      [notJson, 'dataset "d" is not valid JSON'],
      [noReader, 'the reader of dataset "d" could not be loaded'],
    ] as const) {
      const outcome = await pool.run({ code: "return 1", datasets: { d: dataset } });
      expect(outcome.status).toBe("failed");
      if (outcome.status === "failed") expect(outcome.error).toEqual({ reason: "Unavailable", name: "DatasetUnavailable", message });
    }
  });
});
