/**
 * Cancelling a run that another process is running. The app, `workbench
 * serve`, a headless `workbench mcp` and each CLI command share the run store
 * but not their memory, so a cancel goes through the store: the asking
 * process writes a request (`cancel_requests`), the process running the run
 * reads it within POLL_MS, stops the run, and stores it `cancelled`; the
 * asking process watches the run's status to say what happened.
 */
import type { RunStatus } from "../../../shared/envelope.ts";
import type { CodeRunStore } from "./store.ts";

/** How often a process with runs going looks for requests to cancel them. */
export const CANCEL_POLL_MS = 100;
/** How long the asking process waits to see the run stop before it says it has not yet. */
export const CANCEL_WAIT_MS = 5_000;

/** Polls the store for cancel requests aimed at the runs this process is running, while it runs any. */
export class CancelRequestWatch {
  readonly #store: CodeRunStore;
  readonly #running: () => ReadonlyMap<string, AbortController>;
  readonly #log: (message: string) => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(store: CodeRunStore, running: () => ReadonlyMap<string, AbortController>, log: (message: string) => void) {
    this.#store = store;
    this.#running = running;
    this.#log = log;
  }

  /** Call when a run starts here; the poll stops by itself once none runs. */
  wake(): void {
    this.#timer ??= setInterval(() => this.poll(), CANCEL_POLL_MS);
    this.#timer.unref();
  }

  poll(): void {
    const running = this.#running();
    if (running.size === 0) return this.stop();
    try {
      for (const request of this.#store.takeCancelRequests([...running.keys()])) {
        running.get(request.runId)?.abort(new Error(`cancelled by ${request.requestedBy}`));
      }
    } catch (err) {
      // A busy or closing store: the next poll tries again.
      this.#log(`could not read cancel requests: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

export type CancelResult = { ok: boolean; message: string };

export type RemoteCancel =
  | { outcome: "cancelled" }
  | { outcome: "ended"; status: RunStatus }
  | { outcome: "now_pending" }
  | { outcome: "not_yet"; pid?: number };

/**
 * Asks the owner of a running run to cancel it and waits (up to `waitMs`) to
 * see what became of it: cancelled; ended otherwise first; reached a decision
 * meanwhile (the caller withdraws that); or still running (the request stays,
 * and the owner acts on it when it next looks).
 */
export async function cancelElsewhere(store: CodeRunStore, runId: string, by: string, waitMs = CANCEL_WAIT_MS): Promise<RemoteCancel | undefined> {
  if (!store.requestCancel(runId, by)) return undefined;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const status = store.getRun(runId)?.status;
    if (status === "cancelled") return { outcome: "cancelled" };
    if (status === "pending") {
      store.deleteCancelRequest(runId);
      return { outcome: "now_pending" };
    }
    if (status !== "running") {
      store.deleteCancelRequest(runId);
      return { outcome: "ended", status: status ?? "interrupted" };
    }
    if (Date.now() >= deadline) {
      const pid = store.runOwnerPid(runId);
      return pid === undefined ? { outcome: "not_yet" } : { outcome: "not_yet", pid };
    }
    await new Promise((resolve) => setTimeout(resolve, CANCEL_POLL_MS / 2));
  }
}

/** What the asking process says about a cancel it asked another process for (`undefined`: none could be asked). */
export function describeRemoteCancel(runId: string, remote: Exclude<RemoteCancel, { outcome: "now_pending" }> | undefined, status: RunStatus | undefined): CancelResult {
  switch (remote?.outcome) {
    case "cancelled":
      return { ok: true, message: `run ${runId} cancelled (the process running it stopped it)` };
    case "ended":
      return { ok: false, message: `run ${runId} ended (${remote.status}) before the cancel reached it` };
    case "not_yet":
      return { ok: false, message: `run ${runId} is running in another process${remote.pid ? ` (pid ${remote.pid})` : ""}, which has not acted on the cancel within ${CANCEL_WAIT_MS / 1000} s; the request stands, and that process stops the run when it next looks` };
    case undefined:
      return { ok: false, message: status ? `run ${runId} is ${status}; only running or pending runs can be cancelled` : `no run ${runId}` };
  }
}
