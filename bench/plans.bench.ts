/**
 * `npm run bench -- plans`: what a plan saves a person. A program that makes
 * 1, 5 or 20 writes (creations on a real loopback upstream), approved as a
 * plan (one decision after a forecast) against per-call approvals (one
 * decision per write, the program re-run from the top after each). The
 * "person" decides at once, so the time is the workbench's own: from the
 * request to the last write applied.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Envelope } from "../shared/envelope.ts";
import type { ApprovalMode } from "../shared/runs.ts";
import { SHOP_SPEC, startShop } from "../electron/host/test-support/shop.ts";
import { Workbench } from "../electron/host/workbench.ts";
import { percentile, type BenchRow, type BenchSection } from "./table.ts";

const KEY = Buffer.alloc(32, 6).toString("base64");
const REPEATS = 5;

export default async function plansBench(): Promise<BenchSection> {
  const shop = await startShop();
  const dir = mkdtempSync(join(tmpdir(), "wb-bench-plans-"));
  const opened = Workbench.open({ dataDir: dir, env: { WORKBENCH_VAULT_KEY: KEY }, sandboxSize: 1 });
  if (!opened.ok) throw new Error(opened.message);
  const workbench = opened.workbench;
  try {
    const { result } = workbench.registry.store.ingest(JSON.stringify(SHOP_SPEC));
    if (!result.ok) throw new Error(result.error.message);
    workbench.registry.register("shop", result.artifact, { baseUrl: shop.url }, { kind: "text" });
    const rows: BenchRow[] = [];
    for (const writes of [1, 5, 20]) {
      const code = `async () => { let n = 0; for (let i = 0; i < ${writes}; i++) { await apis.shop.createItem({ body: { name: "w" + i } }); n++; } return n; }`;
      const measure = async (approvals: ApprovalMode) => {
        const times: number[] = [];
        let decisions = 0;
        for (let r = 0; r < REPEATS; r++) {
          const started = performance.now();
          const outcome = await applyAll(workbench, code, approvals);
          times.push(performance.now() - started);
          decisions = outcome.decisions;
          if (outcome.envelope.status !== "completed" || outcome.envelope.result !== writes) throw new Error(`the ${approvals} run did not apply ${writes} writes: ${JSON.stringify(outcome.envelope.error ?? outcome.envelope.pending)}`);
        }
        return { decisions, ms: percentile(times, 50) };
      };
      const plan = await measure("plan");
      const perCall = await measure("per-call");
      rows.push(
        { name: `${writes} write${writes === 1 ? "" : "s"}: decisions a person makes`, value: plan.decisions, unit: "", baseline: { name: "per-call", value: perCall.decisions }, target: "1 for any number of writes", ok: plan.decisions === 1 },
        { name: `${writes} write${writes === 1 ? "" : "s"}: request to all applied (decisions at once), p50`, value: Math.round(plan.ms), unit: "ms", baseline: { name: "per-call", value: Math.round(perCall.ms) }, note: `median of ${REPEATS}; a plan runs the program twice (forecast, apply), per-call ${writes + 1} times` },
      );
    }
    return { title: "Plan, then apply, against per-call approvals", rows };
  } finally {
    await workbench.close();
    await shop.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the program and approves every decision it asks for, at once; how many it asked. */
async function applyAll(workbench: Workbench, code: string, approvals: ApprovalMode): Promise<{ envelope: Envelope; decisions: number }> {
  let envelope = await workbench.execute({ code, policy: "all", source: { kind: "cli" }, approvals });
  let decisions = 0;
  while (envelope.status === "pending") {
    const decided = await workbench.decide(envelope.run, "approve", "bench");
    if (!decided.ok) throw new Error(decided.message);
    decisions++;
    envelope = decided.envelope;
  }
  return { envelope, decisions };
}
