/**
 * `npm run bench -- replay`: the extra cost of a replay over a fresh run. A
 * program that makes 10 reads and one write runs fresh (every call live), then
 * is replayed from its saved results (no call sent), and continued after an
 * approval (the reads replayed, the write live).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTestBench } from "../electron/host/test-support/workbench.ts";
import { percentile, type BenchSection } from "./table.ts";

const PROGRAM = `async () => {
  const seen = [];
  for (let i = 0; i < 10; i++) seen.push((await apis.t.listItems({ tag: "t" + i })).status);
  const created = await apis.t.createItem({ body: { name: "bench" } });
  return { seen: seen.length, id: created.body.id };
}`;

export default async function replayBench(): Promise<BenchSection> {
  const dataDir = mkdtempSync(join(tmpdir(), "wb-bench-replay-"));
  const bench = await openTestBench({ sandboxSize: 1 }, dataDir);
  const source = { kind: "cli" } as const;
  const fresh: number[] = [];
  const replayed: number[] = [];
  const continued: number[] = [];
  try {
    for (let i = 0; i < 25; i++) {
      let t = performance.now();
      const parent = await bench.workbench.execute({ code: PROGRAM, policy: "all", source, preApprovedBy: "bench" });
      fresh.push(performance.now() - t);
      const sentBefore = bench.upstream.requests.length;
      t = performance.now();
      const child = await bench.workbench.replay(parent.run, { source });
      replayed.push(performance.now() - t);
      if (child.status !== "completed" || bench.upstream.requests.length !== sentBefore) throw new Error("the replay sent calls or failed");
      const pending = await bench.workbench.execute({ code: PROGRAM, policy: "all", source });
      t = performance.now();
      const done = await bench.workbench.decide(pending.run, "approve", "bench");
      continued.push(performance.now() - t);
      if (!done.ok || done.envelope.status !== "completed") throw new Error("the approved run did not complete");
    }
  } finally {
    await bench.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const p50 = (s: number[]) => Math.round(percentile(s, 50) * 10) / 10;
  return {
    title: "Replay (10 reads + 1 write)",
    rows: [
      { name: "fresh run, every call live, p50", value: p50(fresh), unit: "ms", note: `p95 ${p50([percentile(fresh, 95)])} ms` },
      { name: "replay of that run from saved results, p50", value: p50(replayed), unit: "ms", baseline: { name: "fresh run", value: p50(fresh) }, note: "nothing is sent" },
      { name: "approve → replayed reads + the live write, p50", value: p50(continued), unit: "ms", baseline: { name: "fresh run", value: p50(fresh) } },
    ],
  };
}
