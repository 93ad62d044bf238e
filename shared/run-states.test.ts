/**
 * The words every face uses for run and call states, over every combination:
 * a call is said to wait for a decision only when its run waits on exactly
 * that call; "in flight" without a caveat only while its run runs; nothing
 * sent is ever worded as sent, and the reverse.
 */
import { describe, expect, it } from "vitest";
import type { CallStatus, Decision, RunStatus } from "./envelope.ts";
import { callState, runState } from "./run-states.ts";

const RUN_STATUSES: RunStatus[] = ["running", "pending", "completed", "failed", "cancelled", "interrupted"];
const CALL_STATUSES: CallStatus[] = [200, 404, "in_flight", "unknown", "pending", "denied", "rejected", "failed"];
const DECISIONS: (Decision | undefined)[] = [undefined, "approved", "denied", "allowed_by_rule", "not_needed", "expired"];
const NOT_SENT: CallStatus[] = ["pending", "denied", "rejected"];

describe("callState", () => {
  for (const runStatus of RUN_STATUSES) {
    it(`is total and truthful in a ${runStatus} run`, () => {
      for (const status of CALL_STATUSES) {
        for (const decision of DECISIONS) {
          for (const waitingCall of [undefined, 0, 1]) {
            const call = { index: 0, status, ...(decision ? { decision } : {}) };
            const state = callState(call, runStatus, waitingCall);
            const where = JSON.stringify({ runStatus, status, decision, waitingCall });
            expect(state.label, where).not.toBe("");
            if (state.label === "waiting for a decision") expect(runStatus === "pending" && waitingCall === 0, where).toBe(true);
            if (status === "in_flight" && runStatus !== "running") expect(state.note, where).toMatch(/after the run ended/);
            if (NOT_SENT.includes(status) && status !== "pending") expect(state.note ?? "", where).toMatch(/not sent/);
            if (status === "pending" && !(runStatus === "running" && decision === "approved")) expect(`${state.label} ${state.note ?? ""}`, where).toMatch(/not sent|waiting for a decision/);
            if (status === "unknown") expect(state.note, where).toMatch(/verify before retrying/);
          }
        }
      }
    });
  }
});

describe("runState", () => {
  it("offers approve and deny only for a run that waits on a decision, and cancel only for one that is going", () => {
    const waiting = { callIndex: 1, operation: "POST /pets", request: { method: "POST", url: "http://x/pets" } };
    for (const status of RUN_STATUSES) {
      for (const pending of [undefined, waiting]) {
        const state = runState({ status }, pending);
        expect(state.actions.includes("approve"), status).toBe(status === "pending" && pending !== undefined);
        expect(state.actions.includes("cancel"), status).toBe(status === "running" || status === "pending");
        if (status !== "pending") expect(state.headline).not.toMatch(/decision/);
      }
    }
  });
});
