/**
 * The host side of one run: the request, its wall-clock timer, the host calls
 * it answers, the log lines it collects and the one outcome it settles with.
 * Whatever ends the run first (the worker's report, the wall clock, a cancel, a
 * suspending answer) settles it; everything after that is ignored, so a host
 * answer that arrives late never reaches a finished or reused worker.
 */
import type { JsonValue } from "../../../shared/json.ts";
import type { FromWorker, ToWorker, WorkerFailure, WorkerRunResult } from "./protocol.ts";
import type { HostCallAnswer, RunFacts, RunLimits, RunOutcome, RunRequest } from "./types.ts";

/** What a guest sees when a host function throws or answers with something unusable; the detail goes to the log. */
export const HOST_CALL_FAILED = { name: "Error", message: "host call failed" } as const;

type Ending = { status: "completed"; result: JsonValue } | { status: "failed"; error: WorkerFailure } | { status: "suspended"; callIndex: number };

export interface TicketSetup {
  id: number;
  request: RunRequest;
  limits: RunLimits;
  clock: number;
  seed: number;
  globalsText: string;
  log(message: string): void;
  /** Called once when the run settled; `inWorker` is false when the worker may still be running it. */
  onSettled(ticket: RunTicket, inWorker: boolean): void;
}

export class RunTicket {
  readonly id: number;
  readonly request: RunRequest;
  readonly limits: RunLimits;
  readonly outcome: Promise<RunOutcome>;
  private readonly setup: TicketSetup;
  private resolve!: (outcome: RunOutcome) => void;
  private post: ((message: ToWorker) => void) | undefined;
  private cpuProbe: () => number = () => 0;
  private startedAt: number | undefined;
  private wallTimer: NodeJS.Timeout | undefined;
  private readonly logs: string[] = [];
  private logsTruncated = false;
  private droppedLogLines: number | undefined;
  private calls = 0;
  settled = false;

  constructor(setup: TicketSetup) {
    this.setup = setup;
    this.id = setup.id;
    this.request = setup.request;
    this.limits = setup.limits;
    this.outcome = new Promise((resolve) => (this.resolve = resolve));
  }

  /** Sends the run to a worker and starts the wall clock. */
  start(post: (message: ToWorker) => void, cpuProbe: () => number): void {
    this.post = post;
    this.cpuProbe = cpuProbe;
    this.startedAt = performance.now();
    const { request, limits } = this;
    post({
      type: "run",
      runId: this.id,
      code: request.code,
      prelude: request.prelude ?? "",
      globalsText: this.setup.globalsText,
      datasets: Object.entries(request.datasets ?? {}).map(([name, d]) => ({ name, key: d.key, reader: d.reader })),
      limits,
      clock: this.setup.clock,
      seed: this.setup.seed,
    });
    this.wallTimer = setTimeout(
      () => this.fail({ reason: "Timeout", name: "Timeout", message: `the run took longer than ${limits.wallMs} ms of wall-clock time` }),
      limits.wallMs,
    );
    this.wallTimer.unref();
  }

  receive(message: FromWorker): void {
    if (this.settled) return;
    switch (message.type) {
      case "call":
        this.calls++;
        void this.answerCall(message.index, message.name, message.argsText, message.refused);
        break;
      case "log":
        this.logs.push(message.line);
        break;
      case "logs-full":
        this.logsTruncated = true;
        break;
      case "need":
        void this.provideDatasets(message.keys);
        break;
      case "done":
        this.droppedLogLines = message.droppedLogLines;
        if (message.droppedLogLines) this.logsTruncated = true;
        this.end(endingOf(message.result), message.cpuMs, true);
        break;
    }
  }

  fail(error: WorkerFailure): void {
    this.end({ status: "failed", error }, undefined, false);
  }

  private async answerCall(index: number, name: string, argsText: string, refused: string | undefined): Promise<void> {
    let answer: HostCallAnswer;
    const handler = this.request.onCall;
    if (!handler) answer = { ok: false, error: { name: "Error", message: "no host functions are available in this run" } };
    else {
      try {
        const parsed = parseArguments(argsText, refused);
        answer = await handler(parsed.refused ? { index, name, args: parsed.args, refused: parsed.refused } : { index, name, args: parsed.args });
      } catch (err) {
        this.setup.log(`sandbox: host call ${index} (${name}) threw: ${err instanceof Error ? err.stack : String(err)}`);
        answer = { ok: false, error: HOST_CALL_FAILED };
      }
    }
    if (this.settled) return;
    if (answer && "suspend" in answer && answer.suspend === true) {
      this.end({ status: "suspended", callIndex: index }, undefined, false);
      return;
    }
    this.post?.(this.encodeAnswer(index, name, answer));
  }

  private encodeAnswer(index: number, name: string, answer: HostCallAnswer): ToWorker {
    try {
      if (answer && "ok" in answer && answer.ok === true) {
        return { type: "answer", runId: this.id, index, ok: true, valueText: JSON.stringify(answer.value ?? null) };
      }
      if (answer && "ok" in answer && answer.ok === false && typeof answer.error?.name === "string" && typeof answer.error.message === "string") {
        const { name: errorName, message, details } = answer.error;
        const errorText = JSON.stringify(details === undefined ? { name: errorName, message } : { name: errorName, message, details });
        return { type: "answer", runId: this.id, index, ok: false, errorText };
      }
      this.setup.log(`sandbox: host call ${index} (${name}) answered with an unusable value`);
    } catch (err) {
      this.setup.log(`sandbox: host call ${index} (${name}) answered with a value that is not JSON: ${String(err)}`);
    }
    return { type: "answer", runId: this.id, index, ok: false, errorText: JSON.stringify(HOST_CALL_FAILED) };
  }

  private async provideDatasets(keys: string[]): Promise<void> {
    const texts: Record<string, string> = {};
    for (const key of keys) {
      const [name, dataset] = Object.entries(this.request.datasets ?? {}).find(([, d]) => d.key === key) ?? [];
      try {
        if (!dataset) throw new Error(`no dataset with key ${key}`);
        const text = await dataset.load();
        if (typeof text !== "string") throw new Error("load() did not return a string");
        texts[key] = text;
      } catch (err) {
        this.setup.log(`sandbox: dataset "${name ?? key}" failed to load: ${err instanceof Error ? err.stack : String(err)}`);
        if (!this.settled) this.post?.({ type: "datasets", runId: this.id, failure: `dataset "${name ?? key}" could not be loaded` });
        return;
      }
    }
    if (!this.settled) this.post?.({ type: "datasets", runId: this.id, texts });
  }

  private end(ending: Ending, cpuMs: number | undefined, inWorker: boolean): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.wallTimer);
    const facts: RunFacts = {
      logs: this.finalLogs(),
      logsTruncated: this.logsTruncated,
      clock: this.setup.clock,
      seed: this.setup.seed,
      calls: this.calls,
      cpuMs: round(cpuMs ?? (this.startedAt === undefined ? 0 : this.cpuProbe())),
      wallMs: round(this.startedAt === undefined ? 0 : performance.now() - this.startedAt),
    };
    this.resolve({ ...ending, ...facts } as RunOutcome);
    this.setup.onSettled(this, inWorker);
  }

  private finalLogs(): string[] {
    if (!this.logsTruncated) return this.logs;
    const limits = `limits: ${this.limits.maxLogLines} lines, ${this.limits.maxLogBytes} bytes`;
    const dropped = this.droppedLogLines;
    const marker =
      dropped === undefined ? `[log truncated; ${limits}]`
      : dropped === 0 ? `[log truncated: the last line was cut; ${limits}]`
      : `[log truncated: ${dropped} more line${dropped === 1 ? "" : "s"} not shown; ${limits}]`;
    return [...this.logs, marker];
  }
}

/** The call's arguments; text that does not parse (it never should) reaches the handler as a refusal, so the call is still recorded. */
function parseArguments(argsText: string, refused: string | undefined): { args: JsonValue; refused?: string } {
  if (refused) return { args: null, refused };
  try {
    return { args: JSON.parse(argsText) as JsonValue };
  } catch {
    return { args: null, refused: "the call's arguments did not arrive as JSON" };
  }
}

function endingOf(result: WorkerRunResult): Ending {
  if (result.status === "completed") return { status: "completed", result: JSON.parse(result.resultText) as JsonValue };
  if (result.status === "failed") return { status: "failed", error: result.error };
  // The worker stops only when asked, after the run settled; this is never used.
  return { status: "failed", error: { reason: "Cancelled", name: "Cancelled", message: "the run was stopped" } };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
