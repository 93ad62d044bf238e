/**
 * A run store with damaged pages keeps what is readable: the runs on intact
 * pages come back exactly as they were (calls, decisions, allow rules too),
 * the ones on damaged pages are named, and the damaged file stays as found.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CodeRun, CallRecord } from "../../../shared/runs.ts";
import { describeRecovery } from "./open-database.ts";
import { CodeRunStore } from "./store.ts";
import { sampleCall, sampleRun, steppingClock, tempDataDir } from "./test-support.ts";

let data: ReturnType<typeof tempDataDir>;
const storePath = () => join(data.dir, "runs.sqlite");
const PAGE = 4096;

beforeEach(() => {
  data = tempDataDir();
});
afterEach(() => data.remove());

/** The one-off API the pending run used: what another process needs to continue it after the salvage. */
const PENDING_RUN_API = { name: "alerts", specHash: "f".repeat(64), oneOff: true, baseUrl: "http://127.0.0.1:9", config: { validate: "strict" as const, maxResponseBytes: 1024, timeoutMs: 1000, passthroughHeaders: [], responseHeaders: [] } };

interface Written {
  runs: Map<string, { run: CodeRun; calls: CallRecord[] }>;
  pendingRun: string;
  childRun: string;
}

/** The pages of the file that hold a run's program (the runs table's leaves). */
function runPages(bytes: Buffer): number[] {
  const pages = new Set<number>();
  for (let at = bytes.indexOf("// run "); at >= 0; at = bytes.indexOf("// run ", at + 1)) pages.add(Math.floor(at / PAGE));
  return [...pages].sort((a, b) => a - b);
}

/** 300 runs with a call each, a child run, a pending decision and an allow rule; closed so that the file spans many pages. */
function writeStore(): Written {
  const clock = steppingClock();
  const { store } = CodeRunStore.open(data.dir, { now: clock.now });
  const runs = new Map<string, { run: CodeRun; calls: CallRecord[] }>();
  let pendingRun = "";
  let childRun = "";
  const created: string[] = [];
  store.transaction(() => {
    for (let i = 0; i < 300; i++) {
      const run = store.createRun(sampleRun({ program: `// run ${i}\n${"x".repeat(500)}` }));
      created.push(run.id);
      store.recordCall(sampleCall(run.id, 0, { status: 200, response: { status: 200, headers: {}, body: JSON.stringify({ i }) } }));
      store.updateRun(run.id, { status: "completed", logs: [`log of run ${i}`] });
    }
    const parent = created[10]!;
    childRun = store.createRun(sampleRun({ parentId: parent, program: "// child" })).id;
    pendingRun = store.createRun(sampleRun({ status: "pending", program: "// waits" })).id;
    store.recordCall(sampleCall(pendingRun, 0, { status: "pending" }));
    store.putPendingDecision({
      runId: pendingRun, callIndex: 0, api: "petstore", operation: "POST /pets", request: { method: "POST", url: "https://petstore.example/v1/pets", headers: {} },
      arguments: {}, argumentsHash: "h", requestedBy: { kind: "mcp", client: "agent" }, requestedAt: clock.now().toISOString(),
    });
    store.addAllowRule({ api: "petstore", operationId: "listPets", createdBy: "ui" });
    store.recordRunApi(pendingRun, PENDING_RUN_API);
  });
  for (const summary of store.listRuns({ limit: 500 })) runs.set(summary.id, { run: store.getRun(summary.id)!, calls: store.getCalls(summary.id) });
  store.close();
  return { runs, pendingRun, childRun };
}

describe("salvaging a damaged run store", () => {
  it("copies every readable run, exactly, into the new store and names the lost ones", () => {
    const written = writeStore();
    const bytes = readFileSync(storePath());
    const pages = runPages(bytes);
    const middle = pages[Math.floor(pages.length / 2)]!;
    bytes.fill(0xa5, PAGE * middle, PAGE * (middle + 3)); // three pages in the middle of the runs table, size unchanged
    writeFileSync(storePath(), bytes);

    const { store, recovered } = CodeRunStore.open(data.dir);
    try {
      const salvaged = recovered!.salvaged!;
      expect(recovered!.reason).toMatch(/integrity check|damaged/);
      expect(readFileSync(recovered!.movedTo).equals(bytes)).toBe(true);
      expect(salvaged.runs.lost).toBeGreaterThan(0);
      expect(salvaged.runs.copied + salvaged.runs.lost).toBe(written.runs.size);
      expect(salvaged.runs.lostIds.length).toBe(Math.min(20, salvaged.runs.lost));

      const kept = store.listRuns({ limit: 500 });
      expect(kept).toHaveLength(salvaged.runs.copied);
      for (const { id } of kept) {
        const original = written.runs.get(id)!;
        expect(store.getRun(id)).toEqual(original.run);
        expect(store.getCalls(id)).toEqual(original.calls);
      }
      for (const id of salvaged.runs.lostIds) {
        expect(written.runs.has(id)).toBe(true);
        expect(store.getRun(id)).toBeUndefined();
      }
      expect(store.getPendingDecision(written.pendingRun)).toMatchObject({ callIndex: 0, operation: "POST /pets" });
      expect(store.getRunApis(written.pendingRun)).toEqual([PENDING_RUN_API]);
      expect(store.isAllowed("petstore", "listPets")).toBe(true);
      expect(store.listRuns({ text: "log of run" }).length).toBeGreaterThan(0); // the text index was rebuilt
      expect(describeRecovery(recovered!)).toMatch(
        new RegExp(`^The run history at ${storePath()} could not be opened: .*\\. ${salvaged.runs.copied} of ${written.runs.size} runs \\(with .* calls, 1 allow rules and 1 pending decisions\\) were recovered into a new run store\\. ${salvaged.runs.lost} could not be read \\(run_.*\\)\\. The damaged file is kept as .*runs\\.sqlite\\.corrupt-.*\\. Run \`workbench doctor\``),
      );
    } finally {
      store.close();
    }
  });

  it("keeps the allow rules when the runs table's root is gone (and with it every run), and says no run could be read", () => {
    writeStore();
    const bytes = readFileSync(storePath());
    bytes.fill(0, PAGE * 1, PAGE * 2); // page 2: the runs table's root
    writeFileSync(storePath(), bytes);
    const { store, recovered } = CodeRunStore.open(data.dir);
    try {
      expect(recovered!.salvaged!.runs).toMatchObject({ copied: 0, lost: 302 });
      expect(recovered!.salvaged!.calls.copied).toBe(0); // a call without its run would point nowhere
      expect(recovered!.salvaged!.allowRules.copied).toBe(1);
      expect(store.listAllowRules()).toHaveLength(1);
      expect(describeRecovery(recovered!)).toMatch(/0 of 302 runs .* 302 could not be read \(run_.*, \.\.\.\)/);
    } finally {
      store.close();
    }
  });

  it("keeps a child run whose parent was lost, without the dangling link", () => {
    const written = writeStore();
    const parent = written.runs.get(written.childRun)!.run.parentId!;
    // Find the page that holds the parent row and damage only it.
    const bytes = readFileSync(storePath());
    const marker = Buffer.from(parent);
    let at = -1;
    for (let offset = bytes.indexOf(marker); offset >= 0; offset = bytes.indexOf(marker, offset + 1)) {
      const page = Math.floor(offset / PAGE);
      // The first runs page naming it holds its row; the child's row (which names it as parent) comes later.
      if (at < 0 && bytes.subarray(page * PAGE, (page + 1) * PAGE).includes(Buffer.from("x".repeat(100)))) at = page;
    }
    expect(at).toBeGreaterThan(1);
    bytes.fill(0xa5, at * PAGE + 100, (at + 1) * PAGE);
    writeFileSync(storePath(), bytes);
    const { store, recovered } = CodeRunStore.open(data.dir);
    try {
      expect(recovered!.salvaged!.runs.lostIds).toContain(parent);
      expect(store.getRun(written.childRun)).toMatchObject({ id: written.childRun, program: "// child" });
      expect(store.getRun(written.childRun)!.parentId).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
