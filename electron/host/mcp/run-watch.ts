/**
 * Tells an MCP session when a run it cares about (one it started that went
 * pending, or one its client subscribed to) has finished. The event bus says
 * so at once for runs this process continues; a slow poll of the store covers
 * runs continued by another process sharing the data directory (a decision
 * given with the CLI while no instance was reachable, or by another
 * instance), so the agent is told either way. Each run is reported once.
 */
import type { RunStatus } from "../../../shared/envelope.ts";
import type { Envelope } from "../../../shared/envelope.ts";
import type { EventBus } from "../events.ts";
import type { CodeRunStore } from "../runs/store.ts";

const FINAL: readonly RunStatus[] = ["completed", "failed", "cancelled", "interrupted"];

export interface RunWatchOptions {
  bus: EventBus;
  store: CodeRunStore;
  onFinished: (runId: string, envelope: Envelope | undefined) => void;
  pollMs?: number;
}

export class RunWatch {
  readonly #o: RunWatchOptions;
  readonly #watched = new Set<string>();
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RunWatchOptions) {
    this.#o = options;
    this.#unsubscribe = options.bus.subscribe((event) => {
      if (event.type === "run.finished") this.#finish(event.runId, event.envelope);
    });
  }

  /** Starts watching a run; one that is already final is reported at once. */
  watch(runId: string): void {
    this.#watched.add(runId);
    this.poll();
    if (this.#watched.size > 0 && !this.#timer) {
      this.#timer = setInterval(() => this.poll(), this.#o.pollMs ?? 1_000);
      this.#timer.unref();
    }
  }

  isWatching(runId: string): boolean {
    return this.#watched.has(runId);
  }

  /** Reads the store for watched runs that another process finished. */
  poll(): void {
    for (const runId of [...this.#watched]) {
      const run = this.#o.store.getRun(runId);
      if (!run) this.#watched.delete(runId);
      else if (FINAL.includes(run.status)) this.#finish(runId, run.envelope);
    }
    if (this.#watched.size === 0) this.#stopTimer();
  }

  close(): void {
    this.#unsubscribe();
    this.#watched.clear();
    this.#stopTimer();
  }

  #finish(runId: string, envelope: Envelope | undefined): void {
    if (!this.#watched.delete(runId)) return;
    if (this.#watched.size === 0) this.#stopTimer();
    this.#o.onFinished(runId, envelope);
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
