import { describe, expect, it } from "vitest";
import type { Envelope, EnvelopeCall } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { fitEnvelope } from "./fit-envelope.ts";

const TOKENS = 6_000;
const BUDGET = TOKENS * 4;

function envelope(parts: Partial<Envelope>): Envelope {
  return { run: "run_fit", status: "completed", calls: [], logs: [], ...parts };
}

function nested(depth: number): JsonValue {
  let value: JsonValue = { leaf: true };
  for (let i = 0; i < depth; i++) value = { o: value };
  return value;
}

function call(index: number, message?: string): EnvelopeCall {
  return { index, api: "t", operation: "GET /items", status: message ? "rejected" : 200, ...(message ? { error: { name: "CallRejected", message } } : {}) };
}

describe("fitEnvelope", () => {
  it("leaves an envelope that fits alone", () => {
    const small = envelope({ logs: ["one", "two"], result: { a: [1, 2, 3] } });
    expect(fitEnvelope(small, TOKENS)).toBe(small);
  });

  it("cuts a 500 KB error message and 5,000 log lines, keeping the key order and saying where the rest is", () => {
    const logs = Array.from({ length: 5000 }, (_, i) => `line ${i} ${"z".repeat(100)}`);
    const big = envelope({ status: "failed", logs, error: { reason: "Error", name: "Error", message: "x".repeat(500_000) } });
    const fitted = fitEnvelope(big, TOKENS);
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(BUDGET);
    expect(Object.keys(fitted)).toEqual(["run", "status", "calls", "logs", "error", "truncated"]);
    expect(fitted.logs[0]).toBe(logs[0]);
    expect(fitted.logs.at(-1)).toBe(logs.at(-1));
    expect(fitted.logs).toContainEqual(expect.stringMatching(/^… \d+ log lines cut$/));
    expect(fitted.error).toMatchObject({ reason: "Error", name: "Error", message: expect.stringMatching(/^x+… \[\d+ characters cut\] …x+$/) });
    expect(fitted.truncated).toMatch(/logs: kept the first \d+ and last \d+ of 5000 lines/);
    expect(fitted.truncated).toMatch(/error\.message cut from 500000 to \d+ characters/);
    expect(fitted.truncated).toMatch(/All of it is kept: get_code_run\(\{"run": "run_fit", "max_tokens": N\}\) or `workbench runs show run_fit`\.$/);
    // The original is untouched: the store keeps it whole.
    expect(big.logs).toHaveLength(5000);
    expect(big.error!.message).toHaveLength(500_000);
  });

  it("cuts nesting 3,000 deep even though the value is small, so a pretty print stays small too", () => {
    const deep = envelope({ result: nested(3000) });
    const fitted = fitEnvelope(deep, TOKENS);
    expect(JSON.stringify(fitted, null, 2).length).toBeLessThan(10_000);
    expect(fitted.truncated).toMatch(/result cut to at most 6000 tokens: 1 values cut for depth/);
    let level = fitted.result as Record<string, JsonValue>;
    let depth = 0;
    while (level.o) {
      level = level.o as Record<string, JsonValue>;
      depth++;
    }
    expect(depth).toBe(32);
    expect(level).toEqual({ "…": "object cut: too deep" });
  });

  it("shortens long call errors and, with thousands of calls, keeps the first ones and the last (the waiting call)", () => {
    const calls = Array.from({ length: 3000 }, (_, i) => call(i, `refused ${"r".repeat(3000)}`));
    const pending = envelope({
      status: "pending",
      calls,
      pending: { call: 2999, api: "t", operation: "POST /items", method: "POST", url: `http://127.0.0.1/items?q=${"u".repeat(50_000)}`, arguments: { body: { blob: "b".repeat(200_000) } }, waiting_for: "approval", next: "Nothing was sent." },
    });
    const fitted = fitEnvelope(pending, TOKENS);
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(BUDGET);
    expect(Object.keys(fitted)).toEqual(["run", "status", "calls", "logs", "pending", "truncated"]);
    expect(fitted.calls[0]!.index).toBe(0);
    expect(fitted.calls.at(-1)!.index).toBe(2999);
    expect(fitted.calls[0]!.error!.message.length).toBeLessThan(3000);
    expect(fitted.pending).toMatchObject({ call: 2999, operation: "POST /items", waiting_for: "approval", next: "Nothing was sent." });
    expect(fitted.pending!.url.length).toBeLessThan(5000);
    expect(fitted.truncated).toMatch(/calls: \d+–\d+ not shown/);
    expect(fitted.truncated).toMatch(/call error messages shortened/);
    expect(fitted.truncated).toMatch(/pending\.arguments cut/);
  });

  it("gives the result what the rest leaves, and fits every budget down to a tiny one", () => {
    const logs = Array.from({ length: 300 }, (_, i) => `log ${i}`);
    const result = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item ${i}`, notes: "n".repeat(200) }));
    for (const tokens of [100, 200, 1000, 6000, 20_000]) {
      const fitted = fitEnvelope(envelope({ calls: [call(0)], logs, result }), tokens);
      expect(JSON.stringify(fitted).length, `${tokens} tokens`).toBeLessThanOrEqual(tokens * 4);
      expect(fitted.run).toBe("run_fit");
      expect(fitted.truncated, `${tokens} tokens`).toMatch(/result (cut|omitted)/);
    }
  });
});
