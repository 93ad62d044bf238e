import { describe, expect, it } from "vitest";
import type { Envelope } from "../../../shared/envelope.ts";
import { finishedNotice, NOTICE_RESULT_TOKENS } from "./finished-notice.ts";

const base: Envelope = { run: "run_n", status: "completed", calls: [{ index: 0, api: "t", operation: "POST /items", status: 201, decision: "approved" }], logs: ["a log line"] };

describe("finishedNotice", () => {
  it("carries a small result whole, the calls in a line, and where to read the run", () => {
    const notice = finishedNotice("run_n", "completed", { ...base, result: { id: 7 } }, "get_code_run");
    expect(Object.keys(notice)).toEqual(["event", "run", "status", "calls", "result", "message"]);
    expect(notice).toEqual({
      event: "run.finished",
      run: "run_n",
      status: "completed",
      calls: "POST /items 201 (approved)",
      result: { id: 7 },
      message: 'Run run_n finished: completed. Read it whole with get_code_run({"run": "run_n"}).',
    });
  });

  it("cuts a large result and a long error to a small budget, and never names a tool the host does not offer", () => {
    const big = finishedNotice("run_n", "completed", { ...base, result: Array.from({ length: 1000 }, (_, i) => ({ i, s: "x".repeat(50) })) }, undefined);
    expect(JSON.stringify(big.result).length).toBeLessThanOrEqual(NOTICE_RESULT_TOKENS * 4);
    expect(big.truncated).toBe("the result is cut to about 300 tokens.");
    expect(JSON.stringify(big)).not.toContain("get_code_run");

    const failed: Envelope = { ...base, status: "failed", error: { reason: "Error", name: "TypeError", message: "y".repeat(10_000) } };
    const notice = finishedNotice("run_n", "failed", failed, "read_run");
    expect(notice.error!.message.length).toBeLessThan(700);
    expect(notice.message.length).toBeLessThan(300);
    expect(notice.message).toMatch(/^Run run_n finished: failed \(Error: y+… \[\d+ more characters\]\)\. Read it whole with read_run/);
    expect(notice.truncated).toMatch(/the error message is cut/);
  });

  it("still says the status when the envelope is unknown (a run finished elsewhere with none stored)", () => {
    expect(finishedNotice("run_n", "interrupted", undefined, "get_code_run")).toMatchObject({ status: "interrupted", message: 'Run run_n finished: interrupted. Read it whole with get_code_run({"run": "run_n"}).' });
  });
});
