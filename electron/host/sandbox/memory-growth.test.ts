/**
 * 1,000 runs in a row must not grow the host: each run's instance and memory
 * are dropped, and nothing accumulates in the pool, the workers or the main
 * thread. Worker threads share the process, so RSS covers them too.
 */
import { afterAll, expect, it } from "vitest";
import { SandboxPool } from "./pool.ts";

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

const program = "const items = Array.from({ length: 200 }, (_, i) => ({ i, name: 'item ' + i })); console.log(items.length); return await __host.call('sum', items.map((x) => x.i))";
const onCall = async ({ args }: { args: unknown }) => ({ ok: true as const, value: (args as number[]).reduce((a, b) => a + b, 0) });

async function batch(runs: number): Promise<void> {
  for (let i = 0; i < runs; i += 4) {
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => pool.run({ code: program, onCall })));
    for (const o of outcomes) if (o.status !== "completed" || o.result !== 19900) throw new Error(`run failed: ${JSON.stringify(o)}`);
  }
}

function settle(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

it("1,000 runs in a row do not grow the host's memory", async () => {
  await batch(200); // warm up: JIT, worker caches, spare instances
  settle();
  const before = process.memoryUsage();
  await batch(1_000);
  settle();
  const after = process.memoryUsage();
  const rssGrowthMb = (after.rss - before.rss) / 2 ** 20;
  const heapGrowthMb = (after.heapUsed - before.heapUsed) / 2 ** 20;
  console.info(`1,000 runs: RSS ${(before.rss / 2 ** 20).toFixed(0)} → ${(after.rss / 2 ** 20).toFixed(0)} MiB (${rssGrowthMb.toFixed(1)}), main heap ${heapGrowthMb.toFixed(1)} MiB`);
  // Generous bounds: one leaked 16 MiB instance memory per run would add ~16 GiB.
  expect(rssGrowthMb).toBeLessThan(150);
  expect(heapGrowthMb).toBeLessThan(30);
}, 120_000);
