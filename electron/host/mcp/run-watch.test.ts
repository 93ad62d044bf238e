import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workbench } from "../workbench.ts";
import { openTestBench, TEST_VAULT_KEY, type TestBench } from "../test-support/workbench.ts";
import { RunWatch } from "./run-watch.ts";

let bench: TestBench;
beforeAll(async () => {
  bench = await openTestBench();
});
afterAll(async () => bench.close());

const write = 'async () => (await apis.t.createItem({ body: { name: "w" } })).status';

describe("RunWatch", () => {
  it("reports a run finished in this process once, from the event bus", async () => {
    const seen: string[] = [];
    const watch = new RunWatch({ bus: bench.workbench.bus, store: bench.workbench.store, onFinished: (id, envelope) => seen.push(`${id}:${envelope?.status}`), pollMs: 60_000 });
    const pending = await bench.workbench.execute({ code: write, policy: "all", source: { kind: "cli" } });
    watch.watch(pending.run);
    expect(seen).toEqual([]);
    await bench.workbench.decide(pending.run, "approve", "test");
    watch.poll();
    expect(seen).toEqual([`${pending.run}:completed`]);
    watch.close();
  });

  it("reports a run that another process (another store on the same file) finished, by polling", async () => {
    const seen: string[] = [];
    const watch = new RunWatch({ bus: bench.workbench.bus, store: bench.workbench.store, onFinished: (id, envelope) => seen.push(`${id}:${envelope?.status}`), pollMs: 20 });
    const pending = await bench.workbench.execute({ code: write, policy: "all", source: { kind: "cli" } });
    watch.watch(pending.run);
    const other = Workbench.open({ dataDir: bench.dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (!other.ok) throw new Error(other.message);
    expect(await other.workbench.decide(pending.run, "deny", "elsewhere")).toMatchObject({ ok: true });
    await other.workbench.close();
    for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([`${pending.run}:failed`]);
    watch.close();
  });

  it("reports a run that is already final at once, and forgets unknown runs", async () => {
    const seen: string[] = [];
    const watch = new RunWatch({ bus: bench.workbench.bus, store: bench.workbench.store, onFinished: (id) => seen.push(id) });
    const done = await bench.workbench.execute({ code: "async () => 1", policy: "read_only", source: { kind: "cli" } });
    watch.watch(done.run);
    watch.watch("run_unknown");
    expect(seen).toEqual([done.run]);
    expect(watch.isWatching("run_unknown")).toBe(false);
    watch.close();
  });
});
