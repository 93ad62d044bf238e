/**
 * SandboxPool: runs programs in QuickJS inside a pool of worker threads. The
 * owner of every worker: it queues runs, hands each to an idle worker, and ends
 * a worker that cannot be trusted to finish (stuck in a native builtin past the
 * wall clock, cancelled mid-computation), replacing it. `run` never throws:
 * every failure, including a bad request, is a RunOutcome with a reason.
 *
 * Idle workers do not keep the process alive; `close()` ends them all.
 */
import { randomInt } from "node:crypto";
import { availableParallelism } from "node:os";
import { compiledQuickJS } from "./quickjs-module.ts";
import { resolveLimits } from "./limits.ts";
import { RunTicket } from "./run-ticket.ts";
import { WorkerSlot } from "./worker-slot.ts";
import type { FromWorker, WorkerFailure } from "./protocol.ts";
import { DEFAULT_LIMITS, type RunLimits, type RunOutcome, type RunRequest } from "./types.ts";

export interface SandboxPoolOptions {
  /** Worker threads. Default: min(4, available CPUs). */
  size?: number;
  /** Limits for runs that do not set their own. */
  defaults?: Partial<RunLimits>;
  /** Host-side detail (a host call that threw, a worker that crashed); never shown to the guest. */
  log?: (message: string) => void;
  /** The clock of runs that do not give one (ms since the epoch). Default: Date.now. */
  now?: () => number;
  /** The seed of runs that do not give one (an integer 0 ≤ seed < 2^32). Default: crypto random. */
  newSeed?: () => number;
  /** Bound of each worker's parsed-dataset cache, in characters of dataset JSON. Default: 128 Mi. */
  datasetCacheChars?: number;
}

/** After a stop request, how long a worker that is not in guest code gets to acknowledge before it is killed. */
const STOP_GRACE_MS = 250;

export class SandboxPool {
  readonly size: number;
  private readonly options: SandboxPoolOptions;
  private readonly slots = new Set<WorkerSlot>();
  private readonly queue: RunTicket[] = [];
  private nextRunId = 1;
  private closed = false;
  private workersStarted = 0;

  constructor(options: SandboxPoolOptions = {}) {
    this.options = options;
    const size = options.size ?? Math.min(4, availableParallelism());
    this.size = Number.isInteger(size) && size > 0 ? size : 1;
  }

  /** Workers started so far, replacements included (a figure for tests and the bench). */
  get startedWorkers(): number {
    return this.workersStarted;
  }

  run(request: RunRequest): Promise<RunOutcome> {
    const ticket = this.ticketFor(request);
    if (ticket.settled) return ticket.outcome;
    const signal = request.signal;
    if (signal) {
      const cancel = () => ticket.fail({ reason: "Cancelled", name: "Cancelled", message: "the run was cancelled" });
      if (signal.aborted) cancel();
      else {
        signal.addEventListener("abort", cancel, { once: true });
        void ticket.outcome.then(() => signal.removeEventListener("abort", cancel));
      }
    }
    if (!ticket.settled) {
      this.queue.push(ticket);
      this.dispatch();
    }
    return ticket.outcome;
  }

  /** Starts every worker now, so the first runs do not pay the cold start. */
  async warm(): Promise<void> {
    while (!this.closed && this.slots.size < this.size) {
      if (!this.spawn()) break;
    }
    // A starting worker is unreferenced; while someone waits for it, it must keep the process alive.
    await Promise.all(
      [...this.slots].map(async (slot) => {
        slot.setBusy(true);
        await slot.ready;
        if (!slot.ticket) slot.setBusy(false);
      }),
    );
  }

  /** Fails queued and running runs (`Unavailable`) and ends every worker. */
  async close(): Promise<void> {
    this.closed = true;
    const closing: WorkerFailure = { reason: "Unavailable", name: "Unavailable", message: "the sandbox was closed" };
    for (const ticket of this.queue.splice(0)) ticket.fail(closing);
    const slots = [...this.slots];
    for (const slot of slots) slot.ticket?.fail(closing);
    await Promise.all(slots.map((s) => s.terminate()));
  }

  private ticketFor(request: RunRequest): RunTicket {
    const id = this.nextRunId++;
    const limits = resolveLimits(this.options.defaults, request.limits);
    const clock = request.clock ?? this.options.now?.() ?? Date.now();
    const seed = request.seed ?? this.options.newSeed?.() ?? randomInt(2 ** 32);
    let globalsText = "{}";
    let problem = this.closed ? "the sandbox was closed" : !limits.ok ? limits.message : requestProblem(request, clock, seed);
    if (!problem) {
      try {
        globalsText = JSON.stringify(request.globals ?? {});
      } catch (err) {
        problem = `globals must be JSON values: ${String(err)}`;
      }
    }
    const ticket = new RunTicket({
      id,
      request,
      limits: limits.ok ? limits.limits : DEFAULT_LIMITS,
      clock,
      seed,
      globalsText,
      log: (message) => this.log(message),
      onSettled: (t, inWorker) => this.onSettled(t, inWorker),
    });
    if (problem) ticket.fail({ reason: this.closed ? "Unavailable" : "Error", name: this.closed ? "Unavailable" : "InvalidRunRequest", message: problem });
    return ticket;
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      let slot = [...this.slots].find((s) => !s.ticket && s.state !== "dead");
      if (!slot && this.slots.size < this.size) slot = this.spawn();
      if (!slot) {
        if (this.slots.size === 0) this.failQueue();
        return;
      }
      const ticket = this.queue.shift()!;
      if (ticket.settled) continue;
      void this.assign(slot, ticket);
    }
  }

  private async assign(slot: WorkerSlot, ticket: RunTicket): Promise<void> {
    slot.ticket = ticket;
    slot.setBusy(true);
    const ready = await slot.ready;
    if (!ready) return; // onExit already failed the ticket
    if (ticket.settled) {
      this.release(slot);
      return;
    }
    ticket.start((message) => slot.post(message), () => slot.guestCpuMs());
  }

  private onSettled(ticket: RunTicket, inWorker: boolean): void {
    const slot = [...this.slots].find((s) => s.ticket === ticket);
    if (!slot || inWorker || slot.state !== "ready") return; // queued, starting, or already done
    // The worker still runs a program nobody waits for: stop it, or kill it when it is
    // inside guest code (possibly a native builtin that would ignore the stop).
    if (slot.isInGuest()) void slot.terminate();
    else slot.stopOrTerminate(ticket.id, STOP_GRACE_MS);
  }

  private onMessage(slot: WorkerSlot, message: FromWorker): void {
    if (message.type === "host-log") {
      this.log(message.message);
      return;
    }
    if (message.type === "ready") return;
    const ticket = slot.ticket;
    if (!ticket || ticket.id !== message.runId) return;
    ticket.receive(message);
    if (message.type === "done") this.release(slot);
  }

  private release(slot: WorkerSlot): void {
    slot.clearReclaim();
    slot.ticket = undefined;
    slot.setBusy(false);
    this.dispatch();
  }

  private onExit(slot: WorkerSlot, detail: string | undefined): void {
    this.slots.delete(slot);
    const wasReady = slot.readyAt !== undefined;
    const ticket = slot.ticket;
    slot.ticket = undefined;
    if (detail) this.log(`sandbox: a worker stopped unexpectedly: ${detail}`);
    if (ticket && !ticket.settled) {
      ticket.fail(
        wasReady
          ? { reason: "Unavailable", name: "Unavailable", message: "the sandbox worker stopped unexpectedly" }
          : { reason: "Unavailable", name: "Unavailable", message: "the sandbox could not start" },
      );
    }
    if (this.closed) return;
    // Replace a worker that had worked (never one that failed to start: that would loop).
    if (wasReady) this.spawn();
    this.dispatch();
  }

  /** A new worker, or undefined when none can start (the QuickJS build is missing or broken). */
  private spawn(): WorkerSlot | undefined {
    let wasmModule: WebAssembly.Module;
    try {
      wasmModule = compiledQuickJS();
    } catch (err) {
      this.log(`sandbox: cannot load QuickJS: ${err instanceof Error ? err.stack : String(err)}`);
      return undefined;
    }
    this.workersStarted++;
    const slot = new WorkerSlot(
      { wasmModule, datasetCacheChars: this.options.datasetCacheChars ?? 128 * 1024 * 1024, spareMemoryBytes: this.spareMemoryBytes() },
      { onMessage: (s, m) => this.onMessage(s, m), onExit: (s, d) => this.onExit(s, d) },
    );
    this.slots.add(slot);
    return slot;
  }

  private spareMemoryBytes(): number {
    const limits = resolveLimits(this.options.defaults, undefined);
    return limits.ok ? limits.limits.memoryBytes : DEFAULT_LIMITS.memoryBytes;
  }

  private failQueue(): void {
    for (const ticket of this.queue.splice(0)) {
      ticket.fail({ reason: "Unavailable", name: "Unavailable", message: "the sandbox could not start" });
    }
  }

  private log(message: string): void {
    this.options.log?.(message);
  }
}

function requestProblem(request: RunRequest, clock: number, seed: number): string | undefined {
  if (typeof request.code !== "string") return "code must be a string";
  if (request.prelude !== undefined && typeof request.prelude !== "string") return "prelude must be a string";
  if (!Number.isFinite(clock)) return `clock must be a finite number of ms since the epoch, got ${String(clock)}`;
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) return `seed must be an integer from 0 to 2^32 - 1, got ${String(seed)}`;
  const globals = request.globals ?? {};
  if (typeof globals !== "object" || globals === null || Array.isArray(globals)) return "globals must be an object of JSON values";
  if ("__host" in globals) return "globals may not define __host";
  for (const [name, dataset] of Object.entries(request.datasets ?? {})) {
    if (!dataset || typeof dataset.key !== "string" || typeof dataset.reader !== "string" || typeof dataset.load !== "function") {
      return `dataset "${name}" needs a key, a reader URL and a load function`;
    }
  }
  return undefined;
}
