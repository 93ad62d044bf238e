/**
 * The calls this process has on the wire, across all its runs: each from the
 * moment the host takes it from the program until it is recorded as ended. A
 * run can end (the program returned without awaiting, the wall clock, the
 * call limit, a cancel) while a call it started is still waiting for the
 * upstream; that call is carried through and recorded as it really ends. A
 * short-lived command waits here for such calls before it exits, so that its
 * record is true; a closing workbench stops waiting (`abandon`, once), and
 * each call it gave up on is recorded `unknown`, never left `in_flight`.
 */

export interface WireCall {
  runId: string;
  index: number;
  /** `METHOD /path` as recorded. */
  operation: string;
  /** The API's timeout: the send gives up by itself after this long (a retry after 401 gets another). */
  timeoutMs: number;
  /** performance.now() when it was put on the wire. */
  since: number;
}

export class CallsOnTheWire {
  readonly #calls = new Map<string, WireCall>();
  readonly #abort = new AbortController();
  #waiters: (() => void)[] = [];

  /** Every send listens to this: aborted when the process stops waiting for answers. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Marks a call as on the wire; the returned function marks it done. */
  enter(call: Omit<WireCall, "since">): () => void {
    const key = `${call.runId}#${call.index}`;
    this.#calls.set(key, { ...call, since: performance.now() });
    return () => {
      this.#calls.delete(key);
      if (this.#calls.size === 0) {
        for (const wake of this.#waiters.splice(0)) wake();
      }
    };
  }

  list(): WireCall[] {
    return [...this.#calls.values()];
  }

  /**
   * How long the calls on the wire can still take before their APIs' timeouts
   * end them (ms, rounded up). A call retried after a 401 may take longer; one
   * still going past this bound is recorded `unknown` when the process stops waiting.
   */
  longestRemainingMs(now = performance.now()): number {
    let longest = 0;
    for (const call of this.#calls.values()) longest = Math.max(longest, call.since + call.timeoutMs - now);
    return Math.ceil(Math.max(0, longest));
  }

  /** Resolves true once nothing is on the wire, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.#calls.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#waiters.push(wake);
    });
  }

  /** Stops waiting: every call still on the wire is aborted, and its pipeline records it `unknown`. */
  abandon(reason: string): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(new Error(reason));
  }
}
