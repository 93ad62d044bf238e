/**
 * No input holds the host's main thread (issue #10, class 5): a spec's
 * backtracking pattern, a spec's crowded path template, and a program's huge
 * or deeply nested arguments are each handled in time linear in their size,
 * the run ends as it should (never by its wall clock), and a heartbeat on the
 * main thread keeps beating meanwhile. The heartbeat bound is generous (the
 * unfixed host stalled 12 s on the first attack, minutes on the others); it
 * guards the property, it is not a speed target (those live in `npm run bench`).
 */
import { main } from "../../cli.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../../shared/envelope.ts";
import { assertNoSecret, openAttackBench, type AttackBench } from "./harness.ts";

let bench: AttackBench;
beforeAll(async () => {
  bench = await openAttackBench(main);
  // OpenAPI 3.1: full JSON Schema, patternProperties included.
  bench.registerApi("p", {
    openapi: "3.1.0",
    info: { title: "Patterns", version: "1" },
    components: {
      schemas: {
        Item: { type: "object", properties: { code: { type: "string", pattern: "^(a|aa)+$" }, tags: { type: "object", patternProperties: { "^(b+)+$": { type: "string" } } } } },
      },
    },
    paths: {
      "/items": { post: { operationId: "createItem", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } }, responses: { "200": { description: "ok" } } } },
      "/q": { get: { operationId: "query", parameters: [{ name: "v", in: "query", schema: { type: "string", pattern: "^([a-z]+)*[0-9]$" } }, { name: "w", in: "query", schema: { type: "string", pattern: "^(?=x)x+$" } }], responses: { "200": { description: "ok" } } } },
      "/{a}{b}{c}{d}{e}{f}{g}{h}/end": { get: { operationId: "crowded", parameters: ["a", "b", "c", "d", "e", "f", "g", "h"].map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })), responses: { "200": { description: "ok" } } } },
    },
  }, { baseUrl: `${bench.victim.url}/api` });
});
afterAll(async () => bench.close());

/** Runs the program while a 5 ms heartbeat runs on the main thread; the longest gap between beats. */
async function withHeartbeat(run: () => Promise<Envelope>): Promise<{ envelope: Envelope; longestGapMs: number }> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    const envelope = await run();
    return { envelope, longestGapMs: Math.max(longest, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

const LIMITS = { wallMs: 20_000 };
const STALL_MS = 2_000;

describe("class 5: no spec or program input holds the host", () => {
  it("a backtracking pattern on a path parameter (^(a+)+$ against 28 a's and a '!') is refused at once", async () => {
    const { envelope, longestGapMs } = await withHeartbeat(() =>
      bench.run(`async () => { const out = []; for (const n of [28, 30, 5000]) { try { await apis.x.match({ v: "a".repeat(n) + "!" }); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message.slice(0, 160)); } } return out; }`, { policy: "read_only", limits: LIMITS }),
    );
    expect(envelope.status).toBe("completed");
    for (const line of envelope.result as string[]) expect(line).toMatch(/^CallRejected: invalid arguments for match: path\.v must match pattern "\^\(a\+\)\+\$"/);
    expect(longestGapMs).toBeLessThan(STALL_MS);
    assertNoSecret(await bench.exposure(envelope.run));
  });

  it("patterns in a referenced body schema, in patternProperties and in a query parameter are linear too", async () => {
    const { envelope, longestGapMs } = await withHeartbeat(() =>
      bench.run(`async () => {
        const out = [];
        const attacks = [
          () => apis.p.createItem({ body: { code: "a".repeat(40) + "!" } }),
          () => apis.p.createItem({ body: { tags: { [("b".repeat(40)) + "!"]: "x", ["b".repeat(40)]: 1 } } }),
          () => apis.p.query({ v: "abcdefghijklmnopqrstuvwxyzabcdefgh!" }),
        ];
        for (const attack of attacks) { try { await attack(); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message.slice(0, 200)); } }
        return out;
      }`, { policy: "all", limits: LIMITS }),
    );
    expect(envelope.status).toBe("completed");
    const [code, tags, query] = envelope.result as string[];
    expect(code).toMatch(/^CallRejected: .*body\/code must match pattern/);
    expect(tags).toMatch(/^CallRejected: .*must be string/); // the property "bbb..b" matched the pattern, so its value must be a string
    expect(query).toMatch(/^CallRejected: .*query\.v must match pattern/);
    expect(longestGapMs).toBeLessThan(STALL_MS);
  });

  it("a pattern RE2 cannot run (lookahead) is not checked, and the run's logs say so", async () => {
    const envelope = await bench.run(`async () => (await apis.p.query({ w: "y" })).status`, { policy: "read_only" });
    expect(envelope.result, JSON.stringify(envelope)).toBe(200);
    expect(envelope.logs.join("\n")).toMatch(/the spec's pattern "\^\(\?=x\)x\+\$" could not be checked/);
  });

  it("a crowded path template (eight parameters in one segment) matches a long concrete path in linear time", async () => {
    const { envelope, longestGapMs } = await withHeartbeat(() =>
      bench.run(`async () => { try { await apis.p.request({ method: "GET", path: "/" + "a".repeat(5000) + "/nope" }); } catch (e) { return e.name; } }`, { policy: "read_only", limits: LIMITS }),
    );
    expect(envelope.result).toBe("CallRejected");
    expect(longestGapMs).toBeLessThan(STALL_MS);
  });

  it("arguments too large or nested too deep never cross to the host; the call is refused and recorded", async () => {
    const { envelope, longestGapMs } = await withHeartbeat(() =>
      bench.run(`async () => {
        const out = [];
        let deep = []; for (let i = 0; i < 5000; i++) deep = [deep];
        const big = "x".repeat(20 * 1024 * 1024);
        for (const body of [deep, big, { ok: deep }]) {
          try { await apis.y.collect({ body }); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message); }
        }
        return out;
      }`, { policy: "all", limits: { ...LIMITS, memoryBytes: 256 * 1024 * 1024 } }),
    );
    expect(envelope.status, JSON.stringify(envelope.error)).toBe("completed");
    expect(envelope.result).toEqual([
      expect.stringMatching(/^CallRejected: the call's arguments are nested more than 128 levels deep; nothing was sent$/),
      expect.stringMatching(/^CallRejected: the call's arguments are 20\.0 MB of JSON; a call takes at most 16 MB; nothing was sent$/),
      expect.stringMatching(/^CallRejected: the call's arguments are nested more than 128 levels deep/),
    ]);
    const calls = bench.workbench.store.getCalls(envelope.run);
    expect(calls.map((c) => [c.operation, c.status])).toEqual([["apis.y.collect", "rejected"], ["apis.y.collect", "rejected"], ["apis.y.collect", "rejected"]]);
    expect(bench.exfil.requests).toHaveLength(0);
    expect(longestGapMs).toBeLessThan(STALL_MS);
  });
});
