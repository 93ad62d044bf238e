/**
 * Fits a whole envelope, not just its result, into an agent's token budget:
 * log lines (count and length), the error message, each call's error text,
 * the pending call's arguments and URL, and the nesting of values are all cut
 * structurally, tighter step by step until the envelope fits. The key order
 * stays (run, status, calls, logs, then result | error | pending, then
 * `truncated`); the record of calls is cut last; the `truncated` note says
 * what was cut and where the whole text is. The stored run keeps everything
 * (redacted): only what is returned to an agent or printed is cut.
 */
import type { Envelope, EnvelopeCall, EnvelopePending } from "../../../shared/envelope.ts";
import { CHARS_PER_TOKEN, cutMiddle, cutString, deeperThan, MAX_DEPTH, truncateResult } from "./truncate.ts";

interface Step {
  logLines: number;
  logChars: number;
  messageChars: number;
  callMessageChars: number;
  calls: number;
  urlChars: number;
}

/** Progressively tighter; the first step whose envelope fits wins. */
const STEPS: Step[] = [
  { logLines: Infinity, logChars: Infinity, messageChars: Infinity, callMessageChars: Infinity, calls: Infinity, urlChars: Infinity },
  { logLines: 200, logChars: 2000, messageChars: 8000, callMessageChars: 2000, calls: 500, urlChars: 4000 },
  { logLines: 100, logChars: 500, messageChars: 2000, callMessageChars: 500, calls: 200, urlChars: 1000 },
  { logLines: 40, logChars: 200, messageChars: 800, callMessageChars: 200, calls: 60, urlChars: 300 },
  { logLines: 10, logChars: 120, messageChars: 300, callMessageChars: 100, calls: 20, urlChars: 200 },
  { logLines: 3, logChars: 80, messageChars: 150, callMessageChars: 60, calls: 6, urlChars: 120 },
  { logLines: 0, logChars: 0, messageChars: 60, callMessageChars: 0, calls: 1, urlChars: 60 },
];

/** Room kept for the `truncated` note itself. */
const NOTE_CHARS = 700;

/** The envelope an agent receives: everything in it cut to about `maxTokens`, with a note saying what and where the rest is. */
export function fitEnvelope(envelope: Envelope, maxTokens: number): Envelope {
  const budget = maxTokens * CHARS_PER_TOKEN;
  const deep = deeperThan(envelope.result ?? envelope.pending?.arguments ?? null, MAX_DEPTH);
  if (!deep && size(envelope) <= budget) return envelope;
  for (const [i, step] of STEPS.entries()) {
    const last = i === STEPS.length - 1;
    const notes: string[] = [];
    const head = { run: envelope.run, status: envelope.status, calls: cutCalls(envelope.calls, step, notes), logs: cutLogs(envelope.logs, step, notes) };
    const room = Math.floor((budget - size(head) - NOTE_CHARS) / CHARS_PER_TOKEN);
    // The outcome keeps at least a tenth of the budget before the record of what the program did is cut further.
    if (!last && room < Math.max(25, maxTokens / 10)) continue;
    const fitted: Envelope = { ...head, ...outcomeOf(envelope, step, Math.max(room, 1), maxTokens, notes) };
    if (notes.length) {
      // On the last step under a tiny budget, the note gets what is left; where the rest is always stays.
      const where = whereTheRestIs(envelope.run);
      // Less the key, the quotes and escapes, and the "… [N more characters]" a cut adds.
      const room = (last ? Math.min(NOTE_CHARS, budget - size(fitted) - 16) : NOTE_CHARS) - size(where) - 25;
      fitted.truncated = `${cutString(`${notes.map((n) => n.replace(/\.$/, "")).join("; ")}.`, Math.max(30, room))} ${where}`.trim();
    }
    if (size(fitted) <= budget || last) return fitted;
  }
  return envelope;
}

/** Where an agent finds what was cut: the run as stored. */
export function whereTheRestIs(runId: string): string {
  return runId ? `All of it is kept: get_code_run({"run": "${runId}", "max_tokens": N}) or \`workbench runs show ${runId}\`.` : "";
}

/** result | error | pending, cut to the room left. */
function outcomeOf(envelope: Envelope, step: Step, roomTokens: number, maxTokens: number, notes: string[]): Pick<Envelope, "result" | "error" | "pending"> {
  if (envelope.result !== undefined) {
    const cut = truncateResult(envelope.result, roomTokens, "result", maxTokens);
    if (cut.note) notes.push(cut.note);
    return { result: cut.value };
  }
  if (envelope.error) {
    const message = cutMiddle(envelope.error.message, Math.min(step.messageChars, roomTokens * CHARS_PER_TOKEN));
    if (message !== envelope.error.message) notes.push(`error.message cut from ${envelope.error.message.length} to ${Math.min(step.messageChars, roomTokens * CHARS_PER_TOKEN)} characters`);
    return { error: { ...envelope.error, message } };
  }
  if (envelope.pending) return { pending: cutPending(envelope.pending, step, roomTokens, maxTokens, notes) };
  return {};
}

function cutPending(pending: EnvelopePending, step: Step, roomTokens: number, maxTokens: number, notes: string[]): EnvelopePending {
  const url = cutString(pending.url, step.urlChars);
  if (url !== pending.url) notes.push(`pending.url cut from ${pending.url.length} characters`);
  const rest = Math.ceil(size({ ...pending, url, arguments: null }) / CHARS_PER_TOKEN);
  const args = truncateResult(pending.arguments, Math.max(1, roomTokens - rest), "pending.arguments", maxTokens);
  if (args.note) notes.push(args.note);
  return { ...pending, url, arguments: args.value };
}

/** The first log lines and the last few (where the sandbox says how many it dropped), each shortened. */
function cutLogs(logs: string[], step: Step, notes: string[]): string[] {
  let shortened = 0;
  const line = (text: string) => {
    const cut = cutString(text, step.logChars);
    if (cut !== text) shortened++;
    return cut;
  };
  let kept: string[];
  if (logs.length <= step.logLines) kept = logs.map(line);
  else if (step.logLines === 0) {
    kept = [`… ${logs.length} log lines cut`];
    notes.push(`logs: all ${logs.length} lines cut`);
  } else {
    const tail = Math.min(10, Math.floor(step.logLines / 4));
    const head = step.logLines - tail;
    kept = [...logs.slice(0, head).map(line), `… ${logs.length - head - tail} log lines cut`, ...logs.slice(logs.length - tail).map(line)];
    notes.push(`logs: kept the first ${head} and last ${tail} of ${logs.length} lines`);
  }
  if (shortened) notes.push(`${shortened} log lines shortened to ${step.logChars} characters`);
  return kept;
}

/** Each call's error text shortened; past the step's count, the first calls and the last few (a waiting call is last). */
function cutCalls(calls: EnvelopeCall[], step: Step, notes: string[]): EnvelopeCall[] {
  let kept = calls;
  if (calls.length > step.calls) {
    const tail = Math.min(5, Math.floor(step.calls / 2));
    const head = step.calls - tail;
    kept = [...calls.slice(0, head), ...calls.slice(calls.length - tail)];
    notes.push(`calls: ${calls[head]!.index}–${calls[calls.length - tail - 1]!.index} not shown (${calls.length - kept.length} of ${calls.length})`);
  }
  let shortened = 0;
  const out = kept.map((call) => {
    if (!call.error) return call;
    const message = cutMiddle(call.error.message, step.callMessageChars);
    if (message === call.error.message) return call;
    shortened++;
    return { ...call, error: { ...call.error, message } };
  });
  if (shortened) notes.push(`${shortened} call error messages shortened to ${step.callMessageChars} characters`);
  return out;
}

function size(value: unknown): number {
  return JSON.stringify(value)?.length ?? 4;
}
