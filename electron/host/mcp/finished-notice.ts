/**
 * What an agent is told when a run it was waiting on finishes (a person
 * decided, the program ran again): the status and the outcome in brief, the
 * result or the error cut to a small budget, so that a client which shows
 * notifications to the model gives it the answer without a poll. The notice is
 * no substitute for the envelope: `get_code_run` returns the whole of it.
 */
import type { Envelope } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { cutString, truncateResult } from "../tools/truncate.ts";

/** The result's share of a notice; the rest of it is a few short fields. */
export const NOTICE_RESULT_TOKENS = 300;
const NOTICE_MESSAGE_CHARS = 600;

export interface FinishedNotice {
  event: "run.finished";
  run: string;
  status: string;
  /** The calls' outcomes in one line: `POST /pets 201 (approved)`. */
  calls?: string;
  result?: JsonValue;
  error?: { reason: string; name: string; message: string };
  /** Set when the result or error was cut for the notice. */
  truncated?: string;
  message: string;
  [key: string]: unknown;
}

/** `getRun` names the tool that reads the whole run, when the host offers it. */
export function finishedNotice(runId: string, status: string, envelope: Envelope | undefined, getRun: string | undefined): FinishedNotice {
  const notice = { event: "run.finished", run: runId, status } as FinishedNotice;
  const cuts: string[] = [];
  if (envelope?.calls.length) notice.calls = describeCalls(envelope);
  if (envelope?.result !== undefined) {
    const cut = truncateResult(envelope.result, NOTICE_RESULT_TOKENS);
    notice.result = cut.value;
    if (cut.note) cuts.push(cut.value === null ? "the result is too large for a notice" : `the result is cut to about ${NOTICE_RESULT_TOKENS} tokens`);
  }
  if (envelope?.error) {
    const message = cutString(envelope.error.message, NOTICE_MESSAGE_CHARS);
    notice.error = { reason: envelope.error.reason, name: envelope.error.name, message };
    if (message !== envelope.error.message) cuts.push("the error message is cut");
  }
  const whole = getRun ? ` Read it whole with ${getRun}({"run": "${runId}"}).` : "";
  if (cuts.length) notice.truncated = `${cuts.join("; ")}.${whole}`;
  const outcome = envelope?.error ? `${status} (${envelope.error.reason}: ${cutString(envelope.error.message, 120)})` : status;
  notice.message = `Run ${runId} finished: ${outcome}.${whole}`;
  return notice;
}

/** At most a few calls, the last ones (the decided call is among them), in one line. */
function describeCalls(envelope: Envelope): string {
  const shown = envelope.calls.slice(-5).map((c) => `${c.operation} ${c.status}${c.decision && c.decision !== "not_needed" && c.decision !== c.status ? ` (${c.decision})` : ""}`);
  const more = envelope.calls.length > shown.length ? `${envelope.calls.length - shown.length} earlier calls; ` : "";
  return cutString(`${more}${shown.join("; ")}`, 400);
}
