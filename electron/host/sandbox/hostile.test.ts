/**
 * Hostile programs: each must end with its expected reason and leave the pool
 * able to run a normal program right after. Limits are small so the suite stays
 * fast; the cases that need more room say so.
 */
import { afterAll, describe, expect, it } from "vitest";
import { SandboxPool } from "./pool.ts";
import type { HostCallHandler, RunLimits, RunOutcome } from "./types.ts";

const LIMITS: Partial<RunLimits> = { cpuMs: 300, wallMs: 2_000, memoryBytes: 32 * 1024 * 1024 };
/** For cases that must end on another limit first, however slow the machine. */
const ROOMY_CPU: Partial<RunLimits> = { cpuMs: 10_000, wallMs: 20_000 };
const pool = new SandboxPool({ size: 2, defaults: LIMITS });
afterAll(() => pool.close());

const echo: HostCallHandler = async ({ args }) => ({ ok: true, value: args });

type Expected = RunOutcome["status"] | "Timeout" | "Memory" | "OutputTooLarge" | "Deadlock" | "CallLimit" | "Error";

interface HostileCase {
  name: string;
  code: string;
  expected: Expected;
  /** Checked against the error message (failed runs) or the JSON result (completed runs). */
  detail?: RegExp;
  limits?: Partial<RunLimits>;
  onCall?: HostCallHandler;
}

const cases: HostileCase[] = [
  // Unbounded compute
  { name: "infinite loop", code: "while (true) {}", expected: "Timeout", detail: /300 ms of compute/ },
  { name: "infinite loop that catches everything", code: "for (;;) { try { while (true) {} } catch {} finally { continue } }", expected: "Timeout" },
  { name: "endless await loop", code: "while (true) { await null }", expected: "Timeout" },
  { name: "endless promise jobs", code: "const spin = () => { Promise.resolve().then(spin) }; spin(); await new Promise(() => {})", expected: "Timeout" },
  // Each promise resolves to the next, so the chain holds memory until none is left; QuickJS swallows that out-of-memory.
  { name: "endless promise chain", code: "const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {})", expected: "Memory", limits: ROOMY_CPU },
  { name: "catastrophic regex backtracking", code: "return /(a+)+$/.test('a'.repeat(40) + 'b')", expected: "Timeout" },
  { name: "loop inside a sort comparator", code: "[3, 2, 1].sort(() => { while (true) {} })", expected: "Timeout" },
  { name: "stuck native builtin: new Array(1e8).join('x')", code: "return new Array(1e8).join('x').length", expected: "Timeout", detail: /wall-clock/, limits: { wallMs: 400, cpuMs: 60_000, memoryBytes: 256 * 1024 * 1024 } },
  // Memory
  { name: "ArrayBuffer bomb", code: "const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20))", expected: "Memory", detail: /32 MiB/, limits: ROOMY_CPU },
  { name: "one huge ArrayBuffer", code: "return new ArrayBuffer(2 ** 30).byteLength", expected: "Memory", limits: ROOMY_CPU },
  { name: "typed array bomb", code: "const keep = []; for (;;) keep.push(new Float64Array(1 << 17))", expected: "Memory", limits: ROOMY_CPU },
  { name: "string doubling bomb", code: "let s = 'x'; for (;;) s += s", expected: "Memory", limits: ROOMY_CPU },
  { name: "string doubling bomb, flattened each step", code: "let s = 'xy'; for (;;) { s = s + s; s.indexOf('z') }", expected: "Memory", limits: ROOMY_CPU },
  { name: "object graph bomb", code: "const keep = []; for (;;) keep.push({ a: [1, 2, 3], b: 'x' + keep.length })", expected: "Memory", limits: ROOMY_CPU },
  { name: "huge array fill", code: "return new Array(2 ** 28).fill(0).length", expected: "Memory", limits: ROOMY_CPU },
  // Stack
  { name: "deep recursion", code: "function down(n) { return down(n + 1) + 1 }\nreturn down(0)", expected: "Error", detail: /stack overflow/ },
  { name: "deep recursion, caught and retried", code: "function down() { return down() }\nfor (let i = 0; i < 3; i++) { try { down() } catch {} }\nreturn 'survived'", expected: "completed", detail: /survived/ },
  // QuickJS's cycle check makes this quadratic inside one native call: only the wall clock ends it.
  { name: "deeply nested JSON.stringify", code: "let o = {}; for (let i = 0; i < 1e5; i++) o = { o };\nreturn JSON.stringify(o).length", expected: "Timeout", detail: /wall-clock/, limits: { wallMs: 500 } },
  // Promises and throws
  { name: "a promise nothing settles", code: "await new Promise(() => {})", expected: "Deadlock" },
  { name: "waiting on an unresolved resolver", code: "let resolve; const p = new Promise((r) => { resolve = r }); await p; resolve()", expected: "Deadlock" },
  { name: "throw null", code: "throw null", expected: "Error", detail: /threw null/ },
  { name: "throw an object whose getters throw", code: "throw { get name() { throw 1 }, get message() { throw 2 } }", expected: "Error" },
  { name: "throw a proxy whose trap loops", code: "throw new Proxy({}, { get() { while (true) {} } })", expected: "Timeout" },
  // Output and logs
  { name: "a 50 MB result", code: "return 'x'.repeat(50 * 1024 * 1024)", expected: "OutputTooLarge", limits: { ...ROOMY_CPU, memoryBytes: 128 * 1024 * 1024 } },
  { name: "a result of many small values", code: "return Array.from({ length: 200000 }, (_, i) => ({ i }))", expected: "OutputTooLarge", limits: { ...ROOMY_CPU, memoryBytes: 128 * 1024 * 1024 } },
  { name: "a result whose getter loops", code: "return { get x() { for (;;) {} } }", expected: "Timeout" },
  { name: "a circular result", code: "const a = [], b = [a]; a.push(b); return a", expected: "Error", detail: /circular/i },
  { name: "100,000 log lines", code: "for (let i = 0; i < 100000; i++) console.log('line', i); return 'logged'", expected: "completed", detail: /logged/, limits: ROOMY_CPU },
  { name: "logging while looping forever", code: "while (true) console.log('spam')", expected: "Timeout" },
  { name: "a 10 MB log line", code: "console.log('x'.repeat(1e7)); return 'logged'", expected: "completed", limits: { ...ROOMY_CPU, memoryBytes: 64 * 1024 * 1024 } },
  // Reaching the host
  { name: "this.constructor.constructor", code: "return this.constructor.constructor('return process')().env", expected: "Error", detail: /process/ },
  { name: "Function('return this')() has nothing of Node", code: "const g = Function('return this')(); return [typeof g.process, typeof g.require, typeof g.fetch, typeof g.setTimeout, typeof g.WebAssembly]", expected: "completed", detail: /^\["undefined","undefined","undefined","undefined","undefined"\]$/ },
  { name: "import('os')", code: "return await import('os')", expected: "Error", detail: /modules are not available/ },
  { name: "import inside eval", code: "return await eval(\"import('fs')\")", expected: "Error", detail: /modules are not available/ },
  { name: "static import", code: "import fs from 'fs'\nreturn fs", expected: "Error", detail: /line 1/ },
  { name: "require", code: "return require('child_process')", expected: "Error", detail: /require/ },
  { name: "process.exit", code: "process.exit(1)", expected: "Error", detail: /process/ },
  { name: "fetch", code: "return await fetch('http://127.0.0.1:1/')", expected: "Error", detail: /fetch/ },
  { name: "setTimeout", code: "setTimeout(() => {}, 1)", expected: "Error", detail: /setTimeout/ },
  { name: "Atomics.wait on shared memory", code: "return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000)", expected: "Error", limits: { wallMs: 1_000 } },
  { name: "replacing __host", code: "globalThis.__host = { call: () => 'forged' }; return __host.call('x', 1)", expected: "Error", detail: /read-only|not writable|host/ },
  { name: "replacing JSON.stringify and Promise.prototype.then", code: "JSON.stringify = () => '\"forged\"'; Promise.prototype.then = function () {}; return { honest: true }", expected: "completed", detail: /^\{"honest":true\}$/ },
  // Host calls
  { name: "1,000 host calls against a limit of 100", code: "await Promise.all(Array.from({ length: 1000 }, (_, i) => __host.call('tick', i)))", expected: "CallLimit", limits: { maxCalls: 100 }, onCall: echo },
  { name: "a getter in host call arguments that loops", code: "await __host.call('echo', { get x() { while (true) {} } })", expected: "Timeout", onCall: echo },
  { name: "a toJSON in host call arguments that throws", code: "await __host.call('echo', { toJSON() { throw new Error('toJSON refused') } })", expected: "Error", detail: /toJSON refused/, onCall: echo },
  { name: "calling the bridge with non-strings", code: "return __host.call(42, {})", expected: "Error", detail: /name must be a string/, onCall: echo },
];

describe("hostile programs", () => {
  it("has at least 30 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const outcome = await pool.run({ code: c.code, limits: { ...LIMITS, ...c.limits }, ...(c.onCall ? { onCall: c.onCall } : {}) });
    if (c.expected === "completed" || c.expected === "suspended" || c.expected === "failed") {
      expect(outcome.status, JSON.stringify(outcome).slice(0, 500)).toBe(c.expected);
      if (c.detail && outcome.status === "completed") expect(JSON.stringify(outcome.result)).toMatch(c.detail);
    } else {
      expect(outcome.status, JSON.stringify(outcome).slice(0, 500)).toBe("failed");
      if (outcome.status === "failed") {
        expect(outcome.error.reason, outcome.error.message).toBe(c.expected);
        if (c.detail) expect(outcome.error.message).toMatch(c.detail);
      }
    }
    expect(outcome.logs.length).toBeLessThanOrEqual(1001);
    const after = await pool.run({ code: "return [1 + 1, typeof Object.prototype.polluted, JSON.stringify({ a: 1 })]" });
    expect(after.status === "completed" ? after.result : after).toEqual([2, "undefined", '{"a":1}']);
  });

  it("prototype pollution does not leak into the next run", async () => {
    const polluted = await pool.run({
      code: "Object.prototype.polluted = 'yes'; Array.prototype.map = () => 'hijacked'; Math.random = () => 4; globalThis.leftover = 1; return 'polluted'",
    });
    expect(polluted.status).toBe("completed");
    const clean = await pool.run({ code: "return [({}).polluted, [1].map((x) => x + 1), Math.random() < 1, typeof leftover]" });
    expect(clean.status === "completed" ? clean.result : clean).toEqual([null, [2], true, "undefined"]);
  });

  it("100,000 log lines keep 1,000 and say how many were dropped", async () => {
    const outcome = await pool.run({ code: "for (let i = 0; i < 100000; i++) console.log(i)", limits: { ...LIMITS, ...ROOMY_CPU } });
    expect(outcome.logs).toHaveLength(1001);
    expect(outcome.logs[999]).toBe("999");
    expect(outcome.logs[1000]).toBe("[log truncated: 99000 more lines not shown; limits: 1000 lines, 262144 bytes]");
  });
});
