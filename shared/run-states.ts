/**
 * What each face says about a run and its calls, in one place: the CLI's
 * `runs show`, the app's run view, console and history, and MCP's
 * `get_code_run` all word a state from here, so none of them can promise what
 * the state refuses (a "decide with: workbench approve" under a run that was
 * interrupted, and that `approve` then turns down).
 *
 * A run's stored envelope is its outcome as last returned; it is not its
 * state. After a decision a run is `running` again while its envelope is still
 * the pending one; after a crash it is `interrupted` with whatever envelope it
 * had. Everything here therefore reads the status first and the envelope only
 * for what the status says it holds.
 */
import type { CallStatus, Decision, RunStatus } from "./envelope.ts";

/** What a person can do with a run in this state; every face offers these and nothing else. */
export type RunAction = "approve" | "deny" | "cancel";

export interface RunState {
  /** One line: where the run stands. */
  headline: string;
  /** A second line when the state asks something of the reader. */
  detail?: string;
  actions: RunAction[];
  tone: Tone;
}

export interface CallState {
  /** A word or two: the status as shown in a list. */
  label: string;
  /** What it means for this call, when the label alone could mislead. */
  note?: string;
  tone: Tone;
}

export type Tone = "ok" | "warn" | "danger" | "accent" | "";

/** The fields of a run these words depend on (CodeRun and RunSummary both have them). */
export interface RunLike {
  status: RunStatus;
  failureReason?: string;
  envelope?: { error?: { reason: string; name: string; message: string } };
}

/** The decision a pending run waits on, as far as the words need it. */
export interface WaitingDecision {
  callIndex: number;
  operation: string;
  request: { method: string; url: string };
  /** Set when the decision is on a plan of writes: how many. */
  plan?: { writes: readonly unknown[] };
}

export interface CallLike {
  status: CallStatus;
  decision?: Decision;
  decidedBy?: string;
  endedAfterRun?: true;
}

export const INTERRUPTED_DETAIL = "Calls marked unknown may have reached the API: verify before retrying. Nothing is re-sent by itself.";

export function runState(run: RunLike, waiting: WaitingDecision | undefined): RunState {
  const error = run.envelope?.error;
  switch (run.status) {
    case "running":
      return { headline: "running", actions: ["cancel"], tone: "accent" };
    case "pending":
      if (!waiting) {
        // Its decision was taken by a process that stopped before the run went on: only a cancel ends it.
        return { headline: "pending, but no decision waits any more (one was taken and the run did not go on)", detail: "Cancel it; nothing more will be sent.", actions: ["cancel"], tone: "warn" };
      }
      if (waiting.plan) {
        const n = waiting.plan.writes.length;
        return { headline: `waiting for a person's decision on a plan of ${n} write${n === 1 ? "" : "s"} (the first is call ${waiting.callIndex}: ${waiting.request.method.toUpperCase()} ${waiting.request.url})`, detail: "Nothing was sent: the program ran to its end on forecast answers. Approve the plan (or its first writes) or deny it; the program then runs again from the top and each write is checked against the plan.", actions: ["approve", "deny", "cancel"], tone: "warn" };
      }
      return { headline: `waiting for a person's decision on call ${waiting.callIndex}: ${waiting.request.method.toUpperCase()} ${waiting.request.url}`, detail: "Nothing was sent. Approve or deny it; the program then runs again from the top.", actions: ["approve", "deny", "cancel"], tone: "warn" };
    case "completed":
      return { headline: "completed", actions: [], tone: "ok" };
    case "failed": {
      const reason = error?.reason ?? run.failureReason ?? "Error";
      const what = error ? `${error.name !== reason ? `${error.name}: ` : ""}${error.message}` : "no details were stored";
      return { headline: `failed (${reason}): ${what}`, actions: [], tone: "danger" };
    }
    case "cancelled":
      return { headline: `cancelled${error?.message ? ` (${error.message})` : ""}`, actions: [], tone: "" };
    case "interrupted":
      return { headline: "interrupted: the workbench stopped while this run was running", detail: INTERRUPTED_DETAIL, actions: [], tone: "danger" };
  }
}

/**
 * A call's state, which depends on where its run stands: a call left `pending`
 * by a run that stopped was never sent, and only the call a decision waits on
 * (`waitingCall`, its index) is waiting for one.
 */
export function callState(call: CallLike & { index?: number }, runStatus: RunStatus, waitingCall?: number): CallState {
  const runGoing = runStatus === "running";
  const status = call.status;
  if (typeof status === "number") {
    const tone: Tone = status < 300 ? "ok" : status < 400 ? "" : "danger";
    return call.endedAfterRun ? { label: String(status), note: "answered after the run ended: the program never saw this answer", tone } : { label: String(status), tone };
  }
  switch (status) {
    case "in_flight":
      return runGoing ? { label: "in flight", tone: "accent" } : { label: "in flight", note: "no answer yet after the run ended; it is recorded when it comes", tone: "warn" };
    case "unknown":
      return { label: "unknown", note: "sent, but its outcome is unknown: verify before retrying (never re-sent by itself)", tone: "warn" };
    case "pending":
      if (call.decision === "approved") {
        return runGoing ? { label: "approved", note: "approved; being sent", tone: "accent" } : { label: "not sent", note: "approved, but the run stopped before it was sent", tone: "" };
      }
      return runStatus === "pending" && waitingCall !== undefined && waitingCall === call.index
        ? { label: "waiting for a decision", note: "not sent", tone: "warn" }
        : { label: "not sent", note: "no decision was made before the run stopped", tone: "" };
    case "denied":
      if (call.decision === "expired") return { label: "expired", note: "no decision was made in time; not sent", tone: "danger" };
      return { label: "denied", note: call.decidedBy ? `denied by ${call.decidedBy}; not sent` : "not sent", tone: "danger" };
    case "rejected":
      return { label: "rejected", note: "not sent", tone: "danger" };
    case "failed":
      return { label: "failed", note: call.endedAfterRun ? "failed after the run ended: the program never saw this" : "sent; no usable answer", tone: "danger" };
  }
}
