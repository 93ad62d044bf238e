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
  | { run: string; status: "running"; calls: Envelope["calls"]; logs: string[]; note: string; truncated?: string };

export function runView(store: CodeRunStore, runId: string, maxResultTokens: number): RunView | undefined {
  const run = store.getRun(runId);
  if (!run) return undefined;
  const fit = (envelope: Envelope) => (maxResultTokens > 0 ? forAgent(envelope, maxResultTokens) : envelope);
  if (run.status === "running") {
    // Cut like an envelope (its calls and logs can be long), then said to be running.
    const { run: id, calls, logs, truncated } = fit({ run: run.id, status: "pending", calls: store.getCalls(run.id).map((c) => envelopeCall(c, false)), logs: run.logs });
    return {
      run: id,
      status: "running",
      calls,
      logs,
      note: "The run is running (again, after a decision). You are notified when it finishes; then read it with get_code_run.",
      ...(truncated ? { truncated } : {}),
    };
  }
  if (run.status === "interrupted" || !run.envelope) {
    return fit({
      run: run.id,
      status: "failed",
      calls: store.getCalls(run.id).map((c) => envelopeCall(c, true)),
      logs: run.logs,
      error: { reason: "Unavailable", name: "Interrupted", message: "The workbench stopped while this run was running. Calls marked in_flight or unknown may have reached the API: verify before retrying." },
    });
  }
  return fit(run.envelope);
}
