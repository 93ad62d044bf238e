/**
 * What `get_code_run` (and a `coderun://` resource) tells an agent about a
 * run: the stored envelope, cut like any tool answer; for a run that is still
 * going, or that the workbench lost, an envelope-shaped answer that says so
 * instead of the stale pending one.
 */
import type { Envelope } from "../../../shared/envelope.ts";
import { envelopeCall, forAgent } from "../runs/envelope.ts";
import type { CodeRunStore } from "../runs/store.ts";

export type RunView =
  | Envelope
  | { run: string; status: "running"; calls: Envelope["calls"]; logs: string[]; note: string };

export function runView(store: CodeRunStore, runId: string, maxResultTokens: number): RunView | undefined {
  const run = store.getRun(runId);
  if (!run) return undefined;
  if (run.status === "running") {
    return {
      run: run.id,
      status: "running",
      calls: store.getCalls(run.id).map((c) => envelopeCall(c, false)),
      logs: run.logs,
      note: "The run is running (again, after a decision). You are notified when it finishes; then read it with get_code_run.",
    };
  }
  if (run.status === "interrupted" || !run.envelope) {
    return {
      run: run.id,
      status: "failed",
      calls: store.getCalls(run.id).map((c) => envelopeCall(c, true)),
      logs: run.logs,
      error: { reason: "Unavailable", name: "Interrupted", message: "The workbench stopped while this run was running. Calls marked in_flight or unknown may have reached the API: verify before retrying." },
    };
  }
  return maxResultTokens > 0 ? forAgent(run.envelope, maxResultTokens) : run.envelope;
}
