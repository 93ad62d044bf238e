/**
 * What a killed process leaves behind: the run is `interrupted`, the write that
 * was on the wire is `unknown`, and nothing is ever re-sent by itself. And a
 * store file that cannot be opened is kept aside while the workbench starts
 * with a new one.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { json, startRecordingServer, type RecordingServer } from "../test-support/recording-server.ts";
import { ITEMS_SPEC, TEST_VAULT_KEY } from "../test-support/workbench.ts";
import { Workbench } from "../workbench.ts";

const env = { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY };
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

function open(dataDir: string): { workbench: Workbench; notices: string[] } {
  const opened = Workbench.open({ dataDir, env, sandboxSize: 1 });
  if (!opened.ok) throw new Error(opened.message);
  cleanup.push(() => opened.workbench.close());
  return opened;
}

describe("kill -9 while a write is in flight", () => {
  it("the next start shows the run interrupted and the call unknown, and nothing was re-sent", async () => {
    let posted: () => void = () => {};
    const postArrived = new Promise<void>((resolve) => (posted = resolve));
    const upstream: RecordingServer = await startRecordingServer((req, res) => {
      if (req.method === "POST") return posted(); // never answered
      json(res, 200, []);
    });
    cleanup.push(() => upstream.close());
    const dataDir = mkdtempSync(join(tmpdir(), "wb-crash-"));
    {
      const opened = Workbench.open({ dataDir, env });
      if (!opened.ok) throw new Error(opened.message);
      const { result } = opened.workbench.registry.store.ingest(JSON.stringify(ITEMS_SPEC));
      if (!result.ok) throw new Error("spec");
      opened.workbench.registry.register("t", result.artifact, { baseUrl: upstream.url }, { kind: "text" });
      await opened.workbench.close();
    }

    const child = spawn(process.execPath, [join(import.meta.dirname, "../test-support/crash-child.ts"), dataDir], { stdio: ["ignore", "pipe", "pipe"] });
    let childOut = "";
    child.stdout.on("data", (d: Buffer) => (childOut += d.toString()));
    child.stderr.on("data", (d: Buffer) => (childOut += d.toString()));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await Promise.race([postArrived, exited.then(() => Promise.reject(new Error(`the child exited early: ${childOut}`)))]);
    child.kill("SIGKILL");
    await exited;
    expect(upstream.requests.filter((r) => r.method === "POST")).toHaveLength(1);

    const { workbench, notices } = open(dataDir);
    expect(notices.join("\n")).toMatch(/1 run\(s\) were interrupted .* 1 call\(s\) were in flight and their outcome is unknown \(nothing is re-sent\)/);
    const [summary] = workbench.store.listRuns({});
    expect(summary).toMatchObject({ status: "interrupted", callCount: 1 });
    const [call] = workbench.store.getCalls(summary!.id);
    expect(call).toMatchObject({ status: "unknown", operation: "POST /items", decision: "approved", decidedBy: "crash test" });

    // A replay of the interrupted run refuses to send the write whose outcome is unknown.
    const replay = await workbench.replay(summary!.id, { source: { kind: "cli" }, preApprovedBy: "test" });
    expect(replay.error).toMatchObject({ reason: "ReplayMismatch" });
    expect(replay.error?.message).toMatch(/outcome is unknown; it is never re-sent by itself/);
    await new Promise((r) => setTimeout(r, 100));
    expect(upstream.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  }, 30_000);
});

describe("a corrupt run store", () => {
  it("is kept aside with a clear message, and the workbench starts with a working store", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wb-corrupt-"));
    writeFileSync(join(dataDir, "runs.sqlite"), Buffer.from("this is not a database, it is a note someone saved here by mistake\n".repeat(200)));
    const { workbench, notices } = open(dataDir);
    const aside = readdirSync(dataDir).find((name) => name.startsWith("runs.sqlite.corrupt-"));
    expect(aside).toBeDefined();
    expect(readFileSync(join(dataDir, aside!), "utf8")).toMatch(/^this is not a database/);
    expect(notices.join("\n")).toContain(aside!);
    const envelope = await workbench.execute({ code: "async () => 1 + 1", policy: "read_only", source: { kind: "cli" } });
    expect(envelope.result).toBe(2);
    expect(workbench.store.getRun(envelope.run)?.status).toBe("completed");
    expect(existsSync(join(dataDir, "runs.sqlite"))).toBe(true);
  });
});
