/**
 * Builds the envelope of DESIGN.md from a run and its calls, keys in the fixed
 * order (run, status, calls, logs, then result | error | pending), and cuts a
 * stored envelope to what an agent should receive.
 */
import type { Envelope, EnvelopeCall, EnvelopeError, EnvelopePending, EnvelopePlan } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { CallRecord, PendingDecision, Plan } from "../../../shared/runs.ts";
import { fitEnvelope } from "../tools/fit-envelope.ts";

/** A call whose outcome nobody knows: sent, and then the process died or stopped waiting. */
export const IN_FLIGHT_NOTE = "outcome unknown, verify before retrying";
/** A call still on the wire when its run ended: the process that sent it records the answer when it comes. */
export const STILL_ON_THE_WIRE_NOTE = "no answer yet when the run ended: outcome unknown, verify before retrying; the answer is recorded with the run when it comes";
export const ANSWERED_AFTER_RUN_NOTE = "answered after the run ended: the program never saw this answer";
export const FAILED_AFTER_RUN_NOTE = "failed after the run ended: the program never saw this";

export function envelopeCall(call: CallRecord, runFinished: boolean): EnvelopeCall {
  const out: EnvelopeCall = { index: call.index, api: call.api, operation: call.operation, ...(call.operationId ? { operation_id: call.operationId } : {}), status: call.status };
  if (call.durationMs !== undefined) out.duration_ms = call.durationMs;
  if (call.idempotencyKey) out.idempotency_key = call.idempotencyKey;
  if (call.decision) out.decision = call.decision;
  if (call.replayedFrom) out.replayed = true;
  if (call.firstAttempt) out.retried_after_401 = true;
  if (call.endedAfterRun && typeof call.status === "number") out.answered_after_run_ended = true;
  if (call.error && (call.error.name === "CallDenied" || call.error.name === "CallRejected" || call.error.name === "CallFailed" || call.error.name === "VaultDenied")) {
    out.error = { name: call.error.name, message: call.error.message, ...(call.error.details === undefined ? {} : { details: call.error.details }) };
  }
  const note = callNote(call, runFinished);
  if (note) out.note = note;
  return out;
}

function callNote(call: CallRecord, runFinished: boolean): string | undefined {
  if (call.status === "unknown") return IN_FLIGHT_NOTE;
  if (call.status === "in_flight") return runFinished ? STILL_ON_THE_WIRE_NOTE : undefined;
  if (call.endedAfterRun) return typeof call.status === "number" ? ANSWERED_AFTER_RUN_NOTE : FAILED_AFTER_RUN_NOTE;
  return undefined;
}

/**
 * The stored envelope with its calls as they stand now: a call that ended
 * after its run did, or whose outcome became unknown, changes the record of
 * what happened upstream, never the run's outcome (result, error, pending).
 */
export function withCurrentCalls(envelope: Envelope, calls: CallRecord[]): Envelope {
  const { run, status, calls: _old, logs, ...outcome } = envelope;
  return { run, status, calls: calls.map((c) => envelopeCall(c, status !== "pending")), logs, ...outcome };
}

export interface EnvelopeParts {
  runId: string;
  calls: CallRecord[];
  logs: string[];
  outcome: { result: JsonValue } | { error: EnvelopeError } | { pending: PendingDecision };
}

export function buildEnvelope(parts: EnvelopeParts): Envelope {
  const { outcome } = parts;
  const status = "result" in outcome ? "completed" : "error" in outcome ? "failed" : "pending";
  const envelope: Envelope = {
    run: parts.runId,
    status,
    calls: parts.calls.map((c) => envelopeCall(c, status !== "pending")),
    logs: parts.logs,
  };
  if ("result" in outcome) envelope.result = outcome.result;
  else if ("error" in outcome) envelope.error = outcome.error;
  else envelope.pending = pendingPart(outcome.pending);
  return envelope;
}

/** How many writes to which operations, in few words. */
export function planSummary(plan: Plan): EnvelopePlan {
  const counts = new Map<string, { api: string; operation: string; count: number }>();
  for (const w of plan.writes) {
    const key = `${w.api} ${w.operation}`;
    const entry = counts.get(key) ?? { api: w.api, operation: w.operation, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  const depends = plan.writes.flatMap((w) => w.dependsOn.map((d) => `write ${w.write} (${w.operation}) uses write ${d.from.write}'s response (${d.from.path}) for ${d.at || "its argument"}`));
  const summary: EnvelopePlan = { writes: plan.writes.length, operations: [...counts.values()] };
  if (depends.length) summary.depends = depends.slice(0, 20);
  if (plan.ended.kind === "failed") summary.stopped = `the forecast stopped after ${plan.writes.length} write${plan.writes.length === 1 ? "" : "s"}: ${plan.ended.name}: ${plan.ended.message.slice(0, 300)}`;
  return summary;
}

function pendingPart(decision: PendingDecision): EnvelopePending {
  const pending: EnvelopePending = {
    call: decision.callIndex,
    api: decision.api,
    operation: decision.operation,
    method: decision.request.method,
    url: decision.request.url,
    arguments: decision.arguments,
    waiting_for: "approval",
    ...(decision.expiresAt ? { expires_at: decision.expiresAt } : {}),
    ...(decision.changes?.length ? { changes: decision.changes } : {}),
    ...(decision.plan ? { plan: planSummary(decision.plan) } : {}),
    next: decision.plan
      ? `Nothing was sent. The program ran to its end on forecast answers (response.forecast === true) and planned ${decision.plan.writes.length} write${decision.plan.writes.length === 1 ? "" : "s"}; a person approves the whole plan (or its first writes) or denies it in Codemode Workbench (or with \`workbench approve ${decision.runId}\`). The program then runs again from the top with real answers, each write checked against the plan, and you are notified when it finishes; read the outcome with get_code_run({"run": "${decision.runId}"}).`
      : `Nothing was sent. A person approves or denies this call in Codemode Workbench (or with \`workbench approve ${decision.runId}\`). The program then runs again from the top and you are notified when it finishes; read the outcome with get_code_run({"run": "${decision.runId}"}).`,
  };
  return pending;
}

/** The envelope an agent receives: the whole of it cut structurally to about `maxResultTokens` (see tools/fit-envelope.ts). */
export function forAgent(envelope: Envelope, maxResultTokens: number): Envelope {
  return fitEnvelope(envelope, maxResultTokens);
}
