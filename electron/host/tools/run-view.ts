/**
 * What `get_code_run` (and a `coderun://` resource) tells an agent about a
 * run: the stored envelope, cut like any tool answer, when the run's status
 * says that envelope is its outcome; otherwise (still running, running again
 * after a decision, interrupted, waiting on a decision that is gone) an
 * envelope-shaped answer in the words of shared/run-states.ts, never the
 * stale pending envelope with its "approve" that would be refused.
 */
import type { Envelope } from "../../../shared/envelope.ts";
import { INTERRUPTED_DETAIL, runState } from "../../../shared/run-states.ts";
import { envelopeCall, forAgent } from "../runs/envelope.ts";
import type { CodeRunStore } from "../runs/store.ts";

export type RunView =
  | Envelope
  | { run: string; status: "running" | "pending"; calls: Envelope["calls"]; logs: string[]; note: string; truncated?: string };

export function runView(store: CodeRunStore, runId: string, maxResultTokens: number): RunView | undefined {
  const run = store.getRun(runId);
  if (!run) return undefined;
  const fit = (envelope: Envelope) => (maxResultTokens > 0 ? forAgent(envelope, maxResultTokens) : envelope);
  /** A run with no envelope to show, cut like one (its calls and logs can be long), then said to be in `status`. */
  const inProgress = (status: "running" | "pending", note: string) => {
    const { run: id, calls, logs, truncated } = fit({ run: run.id, status: "pending", calls: store.getCalls(run.id).map((c) => envelopeCall(c, false)), logs: run.logs });
    return { run: id, status, calls, logs, note, ...(truncated ? { truncated } : {}) };
  };
  const calls = (finished: boolean) => store.getCalls(run.id).map((c) => envelopeCall(c, finished));
  if (run.status === "running") {
    return inProgress("running", "The run is running. Read it again with get_code_run once it has finished (a run you started and that waited for a decision is announced when it finishes).");
  }
  if (run.status === "interrupted") {
    return fit({ run: run.id, status: "failed", calls: calls(true), logs: run.logs, error: { reason: "Unavailable", name: "Interrupted", message: `The workbench stopped while this run was running. ${INTERRUPTED_DETAIL}` } });
  }
  if (run.status === "pending" && !store.getPendingDecision(run.id)) {
    return inProgress("pending", `${runState(run, undefined).headline}. Nothing more will be sent; a person can cancel it.`);
  }
  if (!run.envelope) {
    return fit({ run: run.id, status: "failed", calls: calls(true), logs: run.logs, error: { reason: "Unavailable", name: "Unavailable", message: `The run is ${run.status}, but its outcome was not stored (the store may have been salvaged after damage).` } });
  }
  return fit(run.envelope);
}
