/**
 * What a program sees and returns: forms, results and their JSON conversion,
 * errors with positions, console formatting and bounds, the fixed clock and
 * seeded random, frozen globals and the prelude. Real QuickJS in real workers.
 */
import { afterAll, describe, expect, it } from "vitest";
import { SandboxPool } from "./pool.ts";
import type { RunOutcome, RunRequest } from "./types.ts";

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

const run = (code: string, extra: Omit<RunRequest, "code"> = {}) => pool.run({ code, ...extra });

function resultOf(outcome: RunOutcome) {
  if (outcome.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

function errorOf(outcome: RunOutcome) {
  if (outcome.status !== "failed") throw new Error(`expected failed, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe("program forms", () => {
  it.each([
    ["async arrow", "async () => { const a = await Promise.resolve(20); return a + 1 }", 21],
    ["arrow", "() => 21", 21],
    ["function expression", "(function () { return 21 })", 21],
    ["anonymous async function", "async function () { return 21 }", 21],
    ["named function", "async function main() { return 21 }", 21],
    ["body with return and await", "const a = await Promise.resolve(20);\nreturn a + 1", 21],
    ["single expression", "[1, 2, 3].length * 7;", 21],
    ["TypeScript arrow", "async (): Promise<number> => { const a: number = 21; return a }", 21],
    ["TypeScript body", "type N = number;\nconst a: N = 21;\nreturn a as N", 21],
  ])("%s", async (_label, code, expected) => {
    expect(resultOf(await run(code))).toBe(expected);
  });
});

describe("results become JSON", () => {
  it.each([
    ["undefined becomes null", "return undefined", null],
    ["no return becomes null", "const a = 1", null],
    ["a top-level function becomes null", "return () => 1", null],
    ["functions and symbols in objects are dropped, as JSON.stringify does", "return { f() {}, s: Symbol('x'), a: [() => 1, undefined], k: 1 }", { a: [null, null], k: 1 }],
    ["NaN and Infinity become null", "return [NaN, Infinity, -0]", [null, null, 0]],
    ["BigInt becomes a decimal string", "return { big: 2n ** 70n }", { big: "1180591620717411303424" }],
    ["Map becomes an object, Set an array", "return { m: new Map([['a', 1], [2, new Set([3, 3, 4])]]) }", { m: { a: 1, "2": [3, 4] } }],
    ["Date becomes its ISO string", "return new Date(0)", "1970-01-01T00:00:00.000Z"],
    ["toJSON is honoured", "return { toJSON() { return 'custom' } }", "custom"],
  ])("%s", async (_label, code, expected) => {
    expect(resultOf(await run(code))).toEqual(expected);
  });

  it("a cycle fails the run with an Error that says so", async () => {
    const error = errorOf(await run("const a = {}; a.self = a; return a"));
    expect(error.reason).toBe("Error");
    expect(error.name).toBe("TypeError");
    expect(error.message).toMatch(/^the program's result cannot be turned into JSON: .*circular/i);
  });
});

describe("errors", () => {
  it("reports a syntax error with its position in the program as written", async () => {
    const error = errorOf(await run("const a = 1;\nconst b = ;"));
    expect(error).toMatchObject({ reason: "Error", name: "SyntaxError", message: "Unexpected token (line 2, column 11)", at: { line: 2, column: 11 } });
  });

  it("locates an uncaught throw, correcting line 1 for the wrapper", async () => {
    // QuickJS points at the operator: the `.` of `null.x`, the `(` of a call.
    expect(errorOf(await run("const a = 1;\n  null.x;"))).toMatchObject({ reason: "Error", name: "TypeError", at: { line: 2, column: 7 } });
    expect(errorOf(await run("null.x"))).toMatchObject({ name: "TypeError", at: { line: 1, column: 5 } });
  });

  it.each([
    ["throw null", "the program threw null", "Error"],
    ["throw undefined", "the program threw undefined", "Error"],
    ["throw 'plain text'", "plain text", "Error"],
    ["throw { code: 42 }", "{ code: 42 }", "Error"],
    ["class NotFound extends Error { name = 'NotFound' }; throw new NotFound('no pet 7')", "no pet 7", "NotFound"],
    ["await Promise.reject(new RangeError('late'))", "late", "RangeError"],
  ])("%s", async (code, message, name) => {
    expect(errorOf(await run(code))).toMatchObject({ reason: "Error", name, message });
  });
});

describe("console", () => {
  it("formats values the way Node's console does for plain data", async () => {
    const { logs } = await run(`
      console.log('text', 42, true, null, undefined, -0, 10n, Symbol('s'));
      console.log({ a: 1, 'b-c': 'two', nested: { deep: { deeper: { deepest: 1 } } } });
      console.log([1, , 3], new Map([['k', 1]]), new Set(['v']), new Uint8Array([1, 2]));
      console.log(() => 1, function named() {}, class Pet {}, new Date(0), /re/g);
      const cycle = { name: 'c' }; cycle.self = cycle; console.log(cycle);
      console.log({ get secret() { throw new Error('getter ran') } });
      console.log('%s has %d items (%i%%) %j', 'list', 3, 42.9, { a: 1 });
      console.info('info'); console.debug('debug'); console.warn('careful'); console.error('broken');
      console.log(Object.create(null), new (class Pet { constructor() { this.id = 1 } })());
      console.log(Array.from({ length: 120 }, (_, i) => i).length, 'x'.repeat(3));
    `);
    expect(logs).toEqual([
      "text 42 true null undefined -0 10n Symbol(s)",
      "{ a: 1, 'b-c': 'two', nested: { deep: { deeper: [Object] } } }",
      "[ 1, <1 empty item>, 3 ] Map(1) { 'k' => 1 } Set(1) { 'v' } Uint8Array(2) [ 1, 2 ]",
      "[Function (anonymous)] [Function: named] [class Pet] 1970-01-01T00:00:00.000Z /re/g",
      "{ name: 'c', self: [Circular] }",
      "{ secret: [Getter] }",
      "list has 3 items (42%) {\"a\":1}",
      "info",
      "debug",
      "warn: careful",
      "error: broken",
      "[Object: null prototype] {} Pet { id: 1 }",
      "120 xxx",
    ]);
  });

  it("breaks long values over lines and cuts long arrays", async () => {
    const { logs } = await run("console.log({ alpha: 'a'.repeat(30), beta: 'b'.repeat(30), gamma: 'c'.repeat(30) }); console.log(Array.from({ length: 150 }, () => 0))");
    expect(logs[0]).toBe(`{\n  alpha: '${"a".repeat(30)}',\n  beta: '${"b".repeat(30)}',\n  gamma: '${"c".repeat(30)}'\n}`);
    expect(logs[1]).toMatch(/\n {2}\.\.\. 50 more items\n\]$/);
  });

  it("prints an error with its stack in program positions", async () => {
    const { logs } = await run("function fail() { return new Error('boom') }\nconsole.log(fail())");
    expect(logs[0]).toBe("Error: boom\n    at fail (program.js:1:35)\n    at program (program.js:2:17)");
  });

  it("keeps at most maxLogLines lines, then one marker with the count", async () => {
    const outcome = await run("for (let i = 0; i < 20; i++) console.log('line', i); return 'done'", { limits: { maxLogLines: 5 } });
    expect(resultOf(outcome)).toBe("done");
    expect(outcome.logsTruncated).toBe(true);
    expect(outcome.logs).toEqual(["line 0", "line 1", "line 2", "line 3", "line 4", "[log truncated: 15 more lines not shown; limits: 5 lines, 262144 bytes]"]);
  });

  it("cuts the line that crosses maxLogBytes", async () => {
    const outcome = await run("console.log('x'.repeat(100)); console.log('never')", { limits: { maxLogBytes: 30 } });
    expect(outcome.logs[0]).toBe("x".repeat(30));
    expect(outcome.logs.at(-1)).toBe("[log truncated: 1 more line not shown; limits: 1000 lines, 30 bytes]");
  });
});

describe("determinism", () => {
  const program = "return { now: Date.now(), date: new Date().toISOString(), str: Date().slice(0, 15), parsed: new Date(2020, 0, 1).getFullYear(), random: [Math.random(), Math.random(), Math.random()] }";

  it("Date reads the run's clock; Math.random follows the seed; both are reported", async () => {
    const clock = Date.UTC(2024, 4, 17, 12, 30);
    const a = await run(program, { clock, seed: 1234 });
    const b = await run(program, { clock, seed: 1234 });
    const c = await run(program, { clock, seed: 1235 });
    const result = resultOf(a) as { now: number; date: string; str: string; parsed: number; random: number[] };
    expect(result.now).toBe(clock);
    expect(result.date).toBe("2024-05-17T12:30:00.000Z");
    expect(result.str).toBe("Fri May 17 2024");
    expect(result.parsed).toBe(2020);
    expect(resultOf(b)).toEqual(result);
    expect((resultOf(c) as typeof result).random).not.toEqual(result.random);
    expect(a).toMatchObject({ clock, seed: 1234 });
    for (const r of result.random) expect(r >= 0 && r < 1).toBe(true);
  });

  it("Math.random is spread over [0, 1)", async () => {
    const buckets = resultOf(await run("const b = new Array(10).fill(0); for (let i = 0; i < 100000; i++) b[Math.floor(Math.random() * 10)]++; return b", { seed: 99 })) as number[];
    for (const count of buckets) expect(Math.abs(count - 10000)).toBeLessThan(600);
  });

  it("takes the clock and seed from the pool's injected sources when a run gives none", async () => {
    const injected = new SandboxPool({ size: 1, now: () => 86_400_000, newSeed: () => 7 });
    try {
      const outcome = await injected.run({ code: "return [Date.now(), Math.random()]" });
      const seeded = await injected.run({ code: "return [Date.now(), Math.random()]", seed: 7, clock: 86_400_000 });
      expect(outcome).toMatchObject({ clock: 86_400_000, seed: 7 });
      expect(resultOf(outcome)).toEqual(resultOf(seeded));
    } finally {
      await injected.close();
    }
  });
});

describe("globals and prelude", () => {
  it("installs globals deep-frozen", async () => {
    const result = resultOf(
      await run(
        `"use strict";
         const attempts = [];
         for (const attempt of [() => { context.shop.name = 'x' }, () => { context.shop.tags.push('y') }, () => { context = 1 }, () => { delete globalThis.context }]) {
           try { attempt(); attempts.push('changed') } catch (e) { attempts.push(e.name) }
         }
         return { attempts, shop: context.shop, frozen: Object.isFrozen(context.shop.tags) }`,
        { globals: { context: { shop: { name: "Pets", tags: ["a"] } } } },
      ),
    );
    expect(result).toEqual({ attempts: ["TypeError", "TypeError", "TypeError", "TypeError"], shop: { name: "Pets", tags: ["a"] }, frozen: true });
  });

  it("runs the prelude before the program, after the bridge exists", async () => {
    const prelude = "globalThis.helpers = { double: (x) => x * 2, hasHost: typeof __host.call === 'function' };";
    expect(resultOf(await run("return [helpers.double(21), helpers.hasHost]", { prelude }))).toEqual([42, true]);
  });

  it("a prelude that throws fails the run as PreludeError", async () => {
    expect(errorOf(await run("return 1", { prelude: "throw new TypeError('bad prelude')" }))).toEqual({
      reason: "Error",
      name: "PreludeError",
      message: "the prelude failed: TypeError: bad prelude",
    });
  });
});
