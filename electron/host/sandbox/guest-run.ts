/**
 * One run inside a worker: a fresh QuickJS instance over the shared compiled
 * module, with its own WebAssembly.Memory capped at the run's memory limit, so
 * nothing one program does (prototype pollution, a leak, a corrupted heap after
 * an out-of-memory) can reach the next. The instance is dropped when the run
 * ends, never reused and never disposed: disposal after an out-of-memory can
 * abort, and the whole memory is garbage anyway.
 *
 * The run is a small event loop: evaluate, run pending jobs, then wait for host
 * answers. It ends when the program reported, when a limit tripped, or at once
 * when the top-level promise can no longer settle (Deadlock).
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { PROGRAM_FILE, prepareProgram } from "./program.ts";
import { installNatives, type GuestReport } from "./guest-natives.ts";
import {
  computeTimeout,
  deadlockFailure,
  failureFromGuestError,
  failureFromHostException,
  memoryFailure,
  type DescribedError,
} from "./guest-failure.ts";
import type { GuestInstance } from "./guest-instance.ts";
import type { FromWorker, HostAnswerMessage, WorkerFailure, WorkerRunRequest, WorkerRunResult } from "./protocol.ts";
import type { DatasetReader, RunLimits } from "./types.ts";
import { CPU_MICROS, SEGMENT_START_MICROS, nowMicros } from "./timing.ts";

export interface GuestEnvironment {
  /** A fresh instance whose memory cap is the run's; taken only once the program parsed. */
  instance(): Promise<GuestInstance>;
  inspectSource: string;
  /** Datasets of this run by name, parsed, with their readers. */
  datasets: Map<string, { data: unknown; read: DatasetReader }>;
  post(message: FromWorker): void;
  /** See WorkerInit.timing. */
  timing: BigInt64Array;
}

export class GuestRun {
  private readonly request: WorkerRunRequest;
  private readonly limits: RunLimits;
  private readonly env: GuestEnvironment;
  private memoryRefused: () => boolean = () => false;
  private runtime: QuickJSRuntime | undefined;
  /** Describes a guest error value inside the guest (set once the bootstrap ran). */
  private describe: ((error: QuickJSHandle) => DescribedError) | undefined;
  private firstLineShift = 0;
  private fatal: WorkerFailure | undefined;
  private report: GuestReport | undefined;
  private readonly inFlight = new Map<number, QuickJSDeferredPromise>();
  private readonly answers: HostAnswerMessage[] = [];
  private stopRequested = false;
  private wake: (() => void) | undefined;
  private cpuMicros = 0;
  private segmentStart = 0;

  constructor(request: WorkerRunRequest, env: GuestEnvironment) {
    this.request = request;
    this.limits = request.limits;
    this.env = env;
  }

  get cpuMs(): number {
    return this.cpuMicros / 1000;
  }

  /** Log lines the guest counted but did not send, past the run's log limits (known once it reported). */
  get droppedLogLines(): number | undefined {
    return this.report?.droppedLogLines;
  }

  /** A host answer for an in-flight call; applied between guest segments. */
  deliver(answer: HostAnswerMessage): void {
    this.answers.push(answer);
    this.wake?.();
  }

  /** The caller is done with this run (suspended, cancelled, out of wall time). */
  stop(): void {
    this.stopRequested = true;
    this.wake?.();
  }

  async execute(): Promise<WorkerRunResult> {
    const prepared = prepareProgram(this.request.code);
    if (!prepared.ok) {
      const { name, message, line, column } = prepared.error;
      return { status: "failed", error: { reason: "Error", name, message, at: { line, column } } };
    }
    this.firstLineShift = prepared.firstLineShift;

    const instance = await this.env.instance();
    this.memoryRefused = instance.memoryRefused;
    this.runtime = instance.runtime;
    instance.runtime.setInterruptHandler(() => this.shouldInterrupt());
    const ctx = instance.ctx;

    const started = this.inGuest(() => this.startProgram(ctx, instance.bootstrap, prepared.script));
    if (started && !started.ok) return { status: "failed", error: started.failure };
    this.runJobs();
    return this.loop(ctx);
  }

  private startProgram(ctx: QuickJSContext, bootstrap: QuickJSHandle, script: string): { ok: true } | { ok: false; failure: WorkerFailure } {
    const natives = installNatives(ctx, {
      limits: this.limits,
      datasets: this.env.datasets,
      post: (m) => this.env.post(m),
      runId: this.request.runId,
      onCall: (index, deferred) => this.inFlight.set(index, deferred),
      onFatal: (failure) => (this.fatal ??= failure),
      onReport: (report) => (this.report ??= report),
    });
    const formatter = ctx.newString(this.env.inspectSource);
    const { clock, seed, globalsText } = this.request;
    const settings = { clock, seed, maxOutputBytes: this.limits.maxOutputBytes, firstLineShift: this.firstLineShift };
    const config = ctx.newString(`${JSON.stringify(settings).slice(0, -1)},"globals":${globalsText}}`);
    const bridge = ctx.unwrapResult(ctx.callFunction(bootstrap, ctx.undefined, natives, formatter, config));
    const start = ctx.getProp(bridge, "start");
    const describeError = ctx.getProp(bridge, "describeError");
    const describe = (error: QuickJSHandle): DescribedError => {
      const text = ctx.callFunction(describeError, ctx.undefined, error);
      if (text.error) return { name: "Error", message: "the error could not be described" };
      return JSON.parse(ctx.getString(text.value)) as DescribedError;
    };
    this.describe = describe;

    if (this.request.prelude) {
      const prelude = ctx.evalCode(this.request.prelude, "prelude.js");
      if (prelude.error) {
        const described = describe(prelude.error);
        const failure = this.fatal ?? failureFromGuestError(described, this.limits, 0);
        if (failure.reason !== "Error") return { ok: false, failure };
        return { ok: false, failure: { reason: "Error", name: "PreludeError", message: `the prelude failed: ${described.name}: ${described.message}` } };
      }
    }
    const program = ctx.evalCode(script, PROGRAM_FILE);
    if (program.error) return { ok: false, failure: this.fatal ?? failureFromGuestError(describe(program.error), this.limits, this.firstLineShift) };
    const call = ctx.callFunction(start, ctx.undefined, program.value);
    if (call.error) return { ok: false, failure: this.fatal ?? failureFromGuestError(describe(call.error), this.limits, this.firstLineShift) };
    return { ok: true };
  }

  private async loop(ctx: QuickJSContext): Promise<WorkerRunResult> {
    for (;;) {
      const ended = this.ending();
      if (ended) return ended;
      if (this.answers.length === 0 && !this.stopRequested) await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
      if (this.stopRequested) return { status: "stopped" };
      for (let answer = this.answers.shift(); answer; answer = this.answers.shift()) this.applyAnswer(ctx, answer);
      this.runJobs();
    }
  }

  private ending(): WorkerRunResult | undefined {
    if (this.fatal) return { status: "failed", error: this.fatal };
    const report = this.report;
    if (report) {
      if (report.kind === "result") {
        if (Buffer.byteLength(report.text) > this.limits.maxOutputBytes) return this.tooLarge();
        return { status: "completed", resultText: report.text };
      }
      if (report.kind === "too_large") return this.tooLarge();
      const described = JSON.parse(report.text) as DescribedError;
      return { status: "failed", error: failureFromGuestError(described, this.limits, this.firstLineShift, this.memoryRefused()) };
    }
    if (this.inFlight.size === 0 && !this.runtime?.hasPendingJob()) {
      // Out of memory inside a promise job is swallowed by QuickJS and leaves the program waiting forever.
      return { status: "failed", error: this.memoryRefused() ? memoryFailure(this.limits) : deadlockFailure() };
    }
    return undefined;
  }

  private tooLarge(): WorkerRunResult {
    return {
      status: "failed",
      error: { reason: "OutputTooLarge", name: "OutputTooLarge", message: `the result is larger than ${this.limits.maxOutputBytes} bytes of JSON` },
    };
  }

  private applyAnswer(ctx: QuickJSContext, answer: HostAnswerMessage): void {
    const deferred = this.inFlight.get(answer.index);
    if (!deferred) return;
    this.inFlight.delete(answer.index);
    this.inGuest(() => {
      const text = ctx.newString(answer.ok ? answer.valueText : answer.errorText);
      if (answer.ok) deferred.resolve(text);
      else deferred.reject(text);
      text.dispose();
      deferred.dispose();
    });
  }

  private runJobs(): void {
    if (this.fatal || this.report) return;
    this.inGuest(() => {
      const result = this.runtime!.executePendingJobs(-1);
      if (result.error) {
        // Uncatchable: an interrupt (fatal is already set) or the engine itself giving up.
        if (!this.fatal) {
          const described = this.describe?.(result.error) ?? { name: "InternalError", message: "a promise job failed" };
          this.fatal = failureFromGuestError(described, this.limits, this.firstLineShift, this.memoryRefused());
        }
        result.error.dispose();
      }
    });
  }

  /** Runs guest code, accounting compute time; a host-side exception ends the run. */
  private inGuest<T>(fn: () => T): T | undefined {
    this.segmentStart = nowMicros();
    Atomics.store(this.env.timing, SEGMENT_START_MICROS, BigInt(this.segmentStart));
    try {
      return fn();
    } catch (err) {
      this.fatal ??= failureFromHostException(err, this.memoryRefused(), this.limits);
      if (this.fatal.message.startsWith("the sandbox stopped")) {
        this.env.post({ type: "host-log", message: `sandbox: run ${this.request.runId} stopped by a host exception: ${err instanceof Error ? err.stack : String(err)}` });
      }
      return undefined;
    } finally {
      this.cpuMicros += nowMicros() - this.segmentStart;
      Atomics.store(this.env.timing, CPU_MICROS, BigInt(Math.round(this.cpuMicros)));
      Atomics.store(this.env.timing, SEGMENT_START_MICROS, 0n);
    }
  }

  private shouldInterrupt(): boolean {
    if (this.fatal) return true;
    if (this.cpuMicros + (nowMicros() - this.segmentStart) > this.limits.cpuMs * 1000) {
      this.fatal = computeTimeout(this.limits);
      return true;
    }
    return false;
  }
}
