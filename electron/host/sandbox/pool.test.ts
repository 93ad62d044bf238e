/**
 * The pool's lifecycle: queueing past its size, the wall clock (including a run
 * stuck in a native builtin, whose worker is killed and replaced), cancelling,
 * closing, bad requests, and not keeping an idle process alive.
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { SandboxPool } from "./pool.ts";
import type { RunOutcome } from "./types.ts";

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

function errorOf(outcome: RunOutcome) {
  if (outcome.status !== "failed") throw new Error(`expected failed, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe("scheduling", () => {
  it("queues runs beyond the pool size and finishes them all", async () => {
    const outcomes = await Promise.all(Array.from({ length: 9 }, (_, i) => pool.run({ code: `return ${i} * 2` })));
    expect(outcomes.map((o) => (o.status === "completed" ? o.result : o.status))).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16]);
  });

  it("does not count time spent queued against the wall clock", async () => {
    const single = new SandboxPool({ size: 1 });
    try {
      const blocker = single.run({ code: "let x = 0; for (let i = 0; i < 1e7; i++) x += i; return x" });
      const queued = await single.run({ code: "return 1", limits: { wallMs: 250 } });
      expect(queued.status).toBe("completed");
      expect((await blocker).status).toBe("completed");
    } finally {
      await single.close();
    }
  });
});

describe("wall clock", () => {
  it("a host call that never answers ends at the wall limit; the worker is reused", async () => {
    const before = pool.startedWorkers;
    const outcome = await pool.run({ code: "return await __host.call('hang')", limits: { wallMs: 200 }, onCall: () => new Promise(() => {}) });
    expect(errorOf(outcome)).toEqual({ reason: "Timeout", name: "Timeout", message: "the run took longer than 200 ms of wall-clock time" });
    expect((await pool.run({ code: "return 'after'" })).status).toBe("completed");
    expect(pool.startedWorkers).toBe(before);
  });

  it("a run stuck in a native builtin is killed at the wall limit and its worker replaced", async () => {
    const before = pool.startedWorkers;
    // Joining holes never enters the interpreter loop, so QuickJS's interrupt handler is not called.
    const outcome = await pool.run({ code: "return new Array(1e9).join('').length", limits: { wallMs: 300, cpuMs: 60_000 } });
    expect(errorOf(outcome)).toMatchObject({ reason: "Timeout", message: "the run took longer than 300 ms of wall-clock time" });
    expect(outcome.cpuMs).toBeGreaterThan(50); // measured even though the worker could not report it
    await vi.waitFor(() => expect(pool.startedWorkers).toBe(before + 1));
    expect((await pool.run({ code: "return 'replacement works'" })).status).toBe("completed");
  });
});

describe("cancelling", () => {
  it("an AbortSignal cancels a run waiting on a host call", async () => {
    const controller = new AbortController();
    const running = pool.run({
      code: "return await __host.call('slow')",
      signal: controller.signal,
      onCall: async () => {
        controller.abort();
        await sleep(5_000);
        return { ok: true, value: 1 };
      },
    });
    expect(errorOf(await running)).toEqual({ reason: "Cancelled", name: "Cancelled", message: "the run was cancelled" });
  });

  it("an AbortSignal cancels a run busy computing", async () => {
    const controller = new AbortController();
    const running = pool.run({ code: "while (true) {}", signal: controller.signal, limits: { cpuMs: 20_000 } });
    await sleep(100);
    controller.abort();
    const outcome = await running;
    expect(errorOf(outcome).reason).toBe("Cancelled");
    expect(outcome.wallMs).toBeLessThan(5_000);
    expect((await pool.run({ code: "return 1" })).status).toBe("completed");
  });

  it("an already aborted signal cancels before anything runs", async () => {
    let called = false;
    const outcome = await pool.run({
      code: "await __host.call('x')",
      signal: AbortSignal.abort(),
      onCall: async () => {
        called = true;
        return { ok: true, value: null };
      },
    });
    expect(errorOf(outcome).reason).toBe("Cancelled");
    expect(outcome.wallMs).toBe(0);
    expect(called).toBe(false);
  });
});

describe("bad requests", () => {
  it.each([
    ["a negative limit", { limits: { cpuMs: -1 } }, "limit cpuMs must be a positive integer, got -1"],
    ["a tiny memory cap", { limits: { memoryBytes: 1024 } }, "limit memoryBytes must be at least 16777216 (16 MiB), got 1024"],
    ["a fractional call limit", { limits: { maxCalls: 1.5 } }, "limit maxCalls must be a non-negative integer, got 1.5"],
    ["a seed out of range", { seed: 2 ** 32 }, "seed must be an integer from 0 to 2^32 - 1, got 4294967296"],
    ["a clock that is not a number", { clock: Number.NaN }, "clock must be a finite number of ms since the epoch, got NaN"],
    ["a global named __host", { globals: { __host: 1 } }, "globals may not define __host"],
    ["a global that is not JSON", { globals: { big: 1n as never } }, "globals must be JSON values: TypeError: Do not know how to serialize a BigInt"],
  ])("refuses %s with a clear message", async (_label, extra, message) => {
    expect(errorOf(await pool.run({ code: "return 1", ...extra }))).toEqual({ reason: "Error", name: "InvalidRunRequest", message });
  });
});

describe("closing", () => {
  it("fails running and later runs as Unavailable", async () => {
    const closing = new SandboxPool({ size: 1 });
    const running = closing.run({ code: "await __host.call('wait')", onCall: () => new Promise(() => {}) });
    await sleep(100);
    await closing.close();
    expect(errorOf(await running)).toMatchObject({ reason: "Unavailable", message: "the sandbox was closed" });
    expect(errorOf(await closing.run({ code: "return 1" }))).toMatchObject({ reason: "Unavailable" });
  });

  it("an idle pool does not keep the process alive", async () => {
    const script = [
      `const { SandboxPool } = await import(${JSON.stringify(new URL("./pool.ts", import.meta.url).href)});`,
      "const pool = new SandboxPool({ size: 2 });",
      "await pool.warm();",
      "const outcome = await pool.run({ code: 'return 40 + 2' });",
      "console.log(JSON.stringify(outcome.result));",
    ].join("\n");
    const started = performance.now();
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ["--input-type=module", "-e", script], { cwd: fileURLToPath(new URL("../../..", import.meta.url)), timeout: 20_000 }, (err, out) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: out }),
      );
      child.stdin?.end();
    });
    expect(stdout.trim()).toBe("42");
    expect(code).toBe(0);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
