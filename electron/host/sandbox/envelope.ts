/**
 * A finished run as the envelope of DESIGN.md: keys in a fixed order (run,
 * status, calls, logs, then result | error | pending) so that cutting the tail
 * of a long envelope keeps the record of what the program did. The CLI prints
 * it; the tools layer adds the calls and the pending request it knows about.
 */
import type { Envelope, EnvelopeCall, EnvelopePending } from "../../../shared/envelope.ts";
import type { RunOutcome } from "./types.ts";

export interface EnvelopeExtras {
  /** The calls as the proxy recorded them; the sandbox itself only counts them. */
  calls?: EnvelopeCall[];
  /** For a suspended run: which call waits and for what. */
  pending?: EnvelopePending;
}

export function outcomeToEnvelope(runId: string, outcome: RunOutcome, extras: EnvelopeExtras = {}): Envelope {
  const calls = extras.calls ?? [];
  if (outcome.status === "completed") {
    return { run: runId, status: "completed", calls, logs: outcome.logs, result: outcome.result };
  }
  if (outcome.status === "suspended") {
    return { run: runId, status: "pending", calls, logs: outcome.logs, ...(extras.pending ? { pending: extras.pending } : {}) };
  }
  const { reason, name, message, at } = outcome.error;
  // Syntax errors already name their position; a runtime error gets it appended.
  const where = at && !message.endsWith(`(line ${at.line}, column ${at.column})`) ? ` (line ${at.line}, column ${at.column})` : "";
  return { run: runId, status: "failed", calls, logs: outcome.logs, error: { reason, name, message: `${message}${where}` } };
}
