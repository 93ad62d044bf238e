/**
 * One worker thread of the pool and what the pool needs to know about it: is
 * it ready, which run does it hold, is it inside guest code right now (from the
 * shared timing cells, readable even while the worker is stuck in a native
 * builtin), and how to end it.
 */
import { Worker } from "node:worker_threads";
import { entryUrl } from "../common/assets.ts";
import { CPU_MICROS, SEGMENT_START_MICROS, nowMicros } from "./timing.ts";
import type { FromWorker, ToWorker, WorkerInit } from "./protocol.ts";
import type { RunTicket } from "./run-ticket.ts";

/** QuickJS recursion runs on the worker's native stack; 16 MiB lets QuickJS's own bound trip first. */
const WORKER_STACK_MB = 16;

export interface SlotEvents {
  onMessage(slot: WorkerSlot, message: FromWorker): void;
  /** The worker is gone (terminated by us, crashed, or failed to start). */
  onExit(slot: WorkerSlot, detail: string | undefined): void;
}

export class WorkerSlot {
  readonly ready: Promise<boolean>;
  state: "starting" | "ready" | "dead" = "starting";
  /** The run this worker executes, or finishes after the run already settled (draining). */
  ticket: RunTicket | undefined;
  draining = false;
  /** Set when the pool ended the worker on purpose (not a crash). */
  terminating = false;
  /** When the worker became ready (for the cold-start figure). */
  readyAt: number | undefined;
  readonly createdAt = performance.now();
  private readonly worker: Worker;
  private readonly timing: BigInt64Array;
  private reclaimTimer: NodeJS.Timeout | undefined;

  constructor(init: Omit<WorkerInit, "timing">, events: SlotEvents) {
    const timing = new SharedArrayBuffer(16);
    this.timing = new BigInt64Array(timing);
    const workerData: WorkerInit = { ...init, timing };
    this.worker = new Worker(entryUrl("sandboxWorker"), {
      workerData,
      resourceLimits: { stackSizeMb: WORKER_STACK_MB },
      // Flags about how the parent's entry was given (`node --input-type=module -e`) stop a worker file from loading.
      execArgv: process.execArgv.filter((arg) => !arg.startsWith("--input-type")),
    });
    this.worker.unref();
    let failure: string | undefined;
    this.ready = new Promise<boolean>((resolve) => {
      this.worker.on("message", (message: FromWorker) => {
        if (message.type === "ready") {
          this.state = "ready";
          this.readyAt = performance.now();
          resolve(true);
          return;
        }
        events.onMessage(this, message);
      });
      this.worker.on("error", (err) => {
        failure = err instanceof Error ? (err.stack ?? err.message) : String(err);
      });
      this.worker.on("exit", (code) => {
        const wasStarting = this.state === "starting";
        this.state = "dead";
        clearTimeout(this.reclaimTimer);
        resolve(false);
        events.onExit(this, this.terminating ? undefined : (failure ?? `exit code ${code}${wasStarting ? " before the worker was ready" : ""}`));
      });
    });
  }

  post(message: ToWorker): void {
    if (this.state !== "dead") this.worker.postMessage(message);
  }

  /** A busy worker keeps the process alive; an idle one does not. */
  setBusy(busy: boolean): void {
    if (busy) this.worker.ref();
    else this.worker.unref();
  }

  /** Whether the worker is executing guest code at this moment. */
  isInGuest(): boolean {
    return Atomics.load(this.timing, SEGMENT_START_MICROS) !== 0n;
  }

  /** Guest compute time of the current run so far, in ms. */
  guestCpuMs(): number {
    const done = Number(Atomics.load(this.timing, CPU_MICROS)) / 1000;
    const segment = Number(Atomics.load(this.timing, SEGMENT_START_MICROS));
    return done + (segment ? Math.max(0, nowMicros() - segment) / 1000 : 0);
  }

  /** Ask the worker to drop its run; terminate it if it has not within `graceMs`. */
  stopOrTerminate(runId: number, graceMs: number): void {
    this.draining = true;
    this.post({ type: "stop", runId });
    this.reclaimTimer = setTimeout(() => void this.terminate(), graceMs);
    this.reclaimTimer.unref();
  }

  clearReclaim(): void {
    clearTimeout(this.reclaimTimer);
    this.draining = false;
  }

  async terminate(): Promise<void> {
    if (this.state === "dead") return;
    this.terminating = true;
    await this.worker.terminate();
  }
}
