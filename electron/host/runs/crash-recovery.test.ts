import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { DatabaseSync } from "node:sqlite";
import { CodeRunStore } from "./store.ts";
import { sampleCall, sampleRun, steppingClock, tempDataDir } from "./test-support.ts";

let data: ReturnType<typeof tempDataDir>;
beforeEach(() => {
  data = tempDataDir();
});
afterEach(() => data.remove());

const open = () => CodeRunStore.open(data.dir, { now: steppingClock().now }).store;

/** Starts crash-child.ts in a real Node process and resolves with the run id once its write is in flight. */
async function startChild(): Promise<{ child: ChildProcess; runId: string }> {
  const script = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
  const child = spawn(process.execPath, ["--no-warnings", script, data.dir], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const runId = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const ready = /ready (\S+)\n/.exec(stdout);
      if (ready) resolve(ready[1]!);
    });
    child.on("exit", (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
  });
  return { child, runId };
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  const [code, signal] = await exited;
  expect({ code, signal }).toEqual({ code: null, signal: "SIGKILL" });
}

describe("recovery after a crash", () => {
  it("a process killed with SIGKILL mid-write: its run becomes interrupted and the call unknown, never re-sent", async () => {
    const { child, runId } = await startChild();
    try {
      const store = open();
      // While the child lives, its run is its own business.
      expect(store.recoverAfterCrash()).toEqual({ interruptedRuns: [], unknownCalls: [], leftToLiveProcesses: [runId] });
      expect(store.getRun(runId)!.status).toBe("running");
      store.close();
    } finally {
      await killHard(child);
    }

    const store = open();
    expect(store.recoverAfterCrash()).toEqual({ interruptedRuns: [runId], unknownCalls: [{ runId, index: 0 }], leftToLiveProcesses: [] });
    expect(store.getRun(runId)).toMatchObject({ status: "interrupted" });
    expect(store.getRun(runId)).not.toHaveProperty("finishedAt"); // when it died is not known
    const [call] = store.getCalls(runId);
    expect(call).toMatchObject({ status: "unknown", idempotencyKey: "idem-1", decision: "approved", request: { method: "POST", body: '{"name":"Rex"}' } });
    expect(call).not.toHaveProperty("completionOrder");
    // A second start finds nothing more to do: recovery only ever marks, it never retries.
    expect(store.recoverAfterCrash()).toEqual({ interruptedRuns: [], unknownCalls: [], leftToLiveProcesses: [] });
    expect(store.getCalls(runId)[0]!.status).toBe("unknown");
    store.close();
  });

  it("recovers runs of a closed store in this process, but not of one still open", () => {
    const writer = open();
    const running = writer.createRun(sampleRun());
    writer.recordCall(sampleCall(running.id, 0, { status: 200 }));
    writer.recordCall(sampleCall(running.id, 1, { status: "in_flight" }));
    writer.recordCall(sampleCall(running.id, 2, { status: "in_flight" }));
    const waiting = writer.createRun(sampleRun());
    writer.recordCall(sampleCall(waiting.id, 0, { status: "pending" }));
    writer.updateRun(waiting.id, { status: "pending" });
    const done = writer.createRun(sampleRun());
    writer.updateRun(done.id, { status: "completed" });

    const starter = open();
    expect(starter.recoverAfterCrash()).toEqual({ interruptedRuns: [], unknownCalls: [], leftToLiveProcesses: [running.id] });
    writer.close();

    expect(starter.recoverAfterCrash()).toEqual({
      interruptedRuns: [running.id],
      unknownCalls: [{ runId: running.id, index: 1 }, { runId: running.id, index: 2 }],
      leftToLiveProcesses: [],
    });
    expect(starter.getCalls(running.id).map((c) => c.status)).toEqual([200, "unknown", "unknown"]);
    // A run waiting for a person is not a crash: its decision is still wanted.
    expect(starter.getRun(waiting.id)!.status).toBe("pending");
    expect(starter.getCalls(waiting.id)[0]!.status).toBe("pending");
    expect(starter.getRun(done.id)!.status).toBe("completed");
    starter.close();
  });

  it("asks whether another process that owns a run is alive", () => {
    const writer = open();
    const run = writer.createRun(sampleRun());
    writer.close();
    // Make the run another process's on this machine: same host and boot, another pid and session.
    const raw = new DatabaseSync(writer.path);
    raw.prepare("UPDATE runs SET owner_pid = ?, owner_session = 'elsewhere' WHERE id = ?").run(process.pid + 1, run.id);
    raw.close();

    const alive = CodeRunStore.open(data.dir, { isProcessAlive: () => true }).store;
    expect(alive.recoverAfterCrash().leftToLiveProcesses).toEqual([run.id]);
    alive.close();
    const dead = CodeRunStore.open(data.dir, { isProcessAlive: () => false }).store;
    expect(dead.recoverAfterCrash().interruptedRuns).toEqual([run.id]);
    dead.close();
  });

  it("a run continued by another process belongs to that process from then on", () => {
    const first = open();
    const run = first.createRun(sampleRun());
    first.updateRun(run.id, { status: "pending" });
    first.close();
    const second = open(); // e.g. `workbench approve` continuing the run
    second.updateRun(run.id, { status: "running" });
    const third = open();
    expect(third.recoverAfterCrash().leftToLiveProcesses).toEqual([run.id]);
    second.close();
    expect(third.recoverAfterCrash().interruptedRuns).toEqual([run.id]);
    third.close();
  });
});
