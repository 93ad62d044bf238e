import { describe, expect, it } from "vitest";
import { outcomeToEnvelope } from "./envelope.ts";
import type { RunFacts, RunOutcome } from "./types.ts";

const facts: RunFacts = { logs: ["hello"], logsTruncated: false, clock: 0, seed: 1, calls: 0, cpuMs: 1, wallMs: 2 };

describe("outcomeToEnvelope", () => {
  it("orders keys run, status, calls, logs, result", () => {
    const envelope = outcomeToEnvelope("run_1", { status: "completed", result: { id: 42 }, ...facts });
    expect(Object.keys(envelope)).toEqual(["run", "status", "calls", "logs", "result"]);
    expect(envelope).toEqual({ run: "run_1", status: "completed", calls: [], logs: ["hello"], result: { id: 42 } });
  });

  it("keeps a null result", () => {
    expect(outcomeToEnvelope("run_1", { status: "completed", result: null, ...facts })).toHaveProperty("result", null);
  });

  it("reports a failure with its reason and the position of a runtime error", () => {
    const outcome: RunOutcome = { status: "failed", error: { reason: "Error", name: "TypeError", message: "x is undefined", at: { line: 3, column: 7 } }, ...facts };
    const envelope = outcomeToEnvelope("run_2", outcome);
    expect(Object.keys(envelope)).toEqual(["run", "status", "calls", "logs", "error"]);
    expect(envelope.error).toEqual({ reason: "Error", name: "TypeError", message: "x is undefined (line 3, column 7)" });
  });

  it("does not repeat a position the message already names", () => {
    const outcome: RunOutcome = { status: "failed", error: { reason: "Error", name: "SyntaxError", message: "Unexpected token (line 2, column 11)", at: { line: 2, column: 11 } }, ...facts };
    expect(outcomeToEnvelope("run_3", outcome).error?.message).toBe("Unexpected token (line 2, column 11)");
  });

  it("makes a suspended run pending, with the calls and pending request the caller knows", () => {
    const pending = { call: 0, api: "pets", operation: "POST /pets", method: "POST", url: "https://x/pets", arguments: {}, waiting_for: "approval" as const, next: "get_code_run" };
    const envelope = outcomeToEnvelope("run_4", { status: "suspended", callIndex: 0, ...facts }, { calls: [{ index: 0, api: "pets", operation: "POST /pets", status: "pending" }], pending });
    expect(Object.keys(envelope)).toEqual(["run", "status", "calls", "logs", "pending"]);
    expect(envelope.status).toBe("pending");
  });
});
