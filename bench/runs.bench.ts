/**
 * The code-run store with 10,000 runs (four calls each, realistic bodies):
 * listing (first page, deep page, by status, API, text), reading one run with
 * its calls, and opening the file (integrity check and migrations included).
 * Target from issue 5: p50 at most 50 ms for listing and reading.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunStatus } from "../shared/envelope.ts";
import type { RunListFilter } from "../shared/runs.ts";
import { CodeRunStore } from "../electron/host/runs/store.ts";
import { percentile, type BenchRow, type BenchSection } from "./table.ts";

const RUNS = 10_000;
const CALLS_PER_RUN = 4;
const TARGET_MS = 50;
const APIS = ["petstore", "github", "weather", "stripe", "slack", "jira", "notion", "rare"];
const STATUSES: RunStatus[] = ["completed", "completed", "completed", "completed", "completed", "completed", "failed", "pending", "cancelled", "interrupted"];
const WORDS = ["inventory", "invoice", "customer", "forecast", "issue", "label", "repository", "payment", "channel", "ticket"];

export default async function runsBench(): Promise<BenchSection> {
  const dir = mkdtempSync(join(tmpdir(), "runs-bench-"));
  try {
    let t = Date.UTC(2025, 0, 1);
    const now = () => new Date((t += 1000));
    const { store } = CodeRunStore.open(dir, { now });
    const setupStarted = performance.now();
    const ids = fill(store);
    const setupMs = performance.now() - setupStarted;
    store.close();

    const openTimes = sample(5, () => CodeRunStore.open(dir, { now }).store.close());
    const fastOpenTimes = sample(5, () => CodeRunStore.open(dir, { now, integrityCheck: "fast" }).store.close());
    const reopened = CodeRunStore.open(dir, { now }).store;
    const pick = (i: number) => ids[(i * 7919) % ids.length]!;
    const rows: BenchRow[] = [
      info("setup: 10,000 runs, 40,000 calls, one transaction", setupMs, "ms"),
      info("store file size", statSync(join(dir, "runs.sqlite")).size / 1024 / 1024, "MiB"),
      info("open existing store, full check (quick_check) p50", percentile(openTimes, 50), "ms"),
      info("open existing store, fast check (schema read) p50", percentile(fastOpenTimes, 50), "ms"),
      ...timed("list first page (50)", () => reopened.listRuns({})),
      ...timed("list page 100 (keyset)", pagerAt(reopened, 100)),
      ...timed("list status=failed", () => reopened.listRuns({ status: ["failed"] })),
      ...timed("list api=github (1 in 8 runs)", () => reopened.listRuns({ api: "github" })),
      ...timed("list api=rare (1 in 100 runs)", () => reopened.listRuns({ api: "rare" })),
      ...timed("list text 'invoice' (1 in 10 runs)", () => reopened.listRuns({ text: "invoice" })),
      ...timed("list text 'run 4242' (one run)", () => reopened.listRuns({ text: '"run 4242"' })),
      ...timed("list text 'zz' (LIKE fallback)", () => reopened.listRuns({ text: "zz" })),
      ...timed("list status+source+api+text", () => reopened.listRuns({ status: ["completed"], source: "mcp", api: "github", text: "label" })),
      ...timed("read one run + its 4 calls", (i) => [reopened.getRun(pick(i)), reopened.getCalls(pick(i))]),
    ];
    reopened.close();
    return { title: "Code-run store (10,000 runs)", rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fill(store: CodeRunStore): string[] {
  const ids: string[] = [];
  const body = JSON.stringify(Array.from({ length: 12 }, (_, i) => ({ id: i, name: `pet ${i}`, tag: "dog", status: "available" })));
  store.transaction(() => {
    for (let i = 0; i < RUNS; i++) {
      const word = WORDS[i % WORDS.length]!;
      const api = i % 100 === 0 ? "rare" : APIS[i % (APIS.length - 1)]!;
      const run = store.createRun({
        source: i % 3 === 0 ? { kind: "ui" } : { kind: "mcp", client: "claude-code 2.1.0" },
        tool: "execute",
        policy: i % 2 === 0 ? "all" : "read_only",
        program: `// run ${i}: check the ${word}\nasync () => {\n${"  const x = await apis.petstore.listPets({ limit: 10 });\n".repeat(8)}  return x;\n}`,
        clock: i,
        seed: i,
      });
      for (let c = 0; c < CALLS_PER_RUN; c++) {
        store.recordCall({
          runId: run.id,
          index: c,
          api,
          operation: c === 3 ? "POST /labels" : "GET /items",
          operationId: c === 3 ? "addLabel" : "listItems",
          arguments: { limit: 10, page: c },
          argumentsHash: `h${i}-${c}`,
          request: { method: c === 3 ? "POST" : "GET", url: `https://${api}.example/items?page=${c}`, headers: { accept: "application/json" } },
          status: "in_flight",
        });
        store.finishCall(run.id, c, { status: 200, durationMs: 20 + c, response: { status: 200, headers: { "content-type": "application/json" }, body }, result: { status: 200, body: JSON.parse(body) } });
      }
      const status = STATUSES[i % STATUSES.length]!;
      store.updateRun(run.id, { status, logs: [`looked at ${word}`, `page ${i}`], ...(status === "failed" ? { failureReason: "Error" } : {}) });
      ids.push(run.id);
    }
  });
  return ids;
}

/** Returns a function that lists the page `n` pages deep (the cursor is found once, outside the timing). */
function pagerAt(store: CodeRunStore, n: number): () => unknown {
  let before: string | undefined;
  for (let page = 0; page < n; page++) {
    const filter: RunListFilter = before ? { before } : {};
    before = store.listRuns(filter).at(-1)?.id;
  }
  return () => store.listRuns({ before: before! });
}

function sample(times: number, fn: (i: number) => unknown): number[] {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    fn(i);
    samples.push(performance.now() - t0);
  }
  return samples;
}

function timed(name: string, fn: (i: number) => unknown): BenchRow[] {
  sample(5, fn); // warm the statement cache and the page cache
  const samples = sample(60, fn);
  const p50 = percentile(samples, 50);
  return [
    { name: `${name} p50`, value: p50, unit: "ms", target: `<= ${TARGET_MS} ms`, ok: p50 <= TARGET_MS },
    { name: `${name} p95`, value: percentile(samples, 95), unit: "ms" },
  ];
}

function info(name: string, value: number, unit: string): BenchRow {
  return { name, value, unit };
}
