/**
 * Deterministic replay. After a decision (or when a person re-runs a program
 * against its parent's results), the program runs again from the top with the
 * same clock and seed. Each call it starts is matched by index against the
 * saved calls: a call that already ran gets its saved answer back, delivered in
 * the order the answers originally arrived (so a Promise.all race resolves the
 * same way), and is never sent again. A call that differs from the saved one is
 * a ReplayMismatch; nothing is sent. Calls past the saved ones run live.
 */
import type { CallRecord } from "../../../shared/runs.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { HostCallAnswer } from "../sandbox/types.ts";

export type ReplayStep =
  /** Saved answer; resolves when every earlier-completing call has been answered. */
  | { kind: "saved"; answer: Promise<HostCallAnswer>; record: CallRecord }
  /** The call a person approved: send it now (its request must still be the approved one). */
  | { kind: "approved"; record: CallRecord }
  /** Not in the saved record: run it live. */
  | { kind: "live" }
  | { kind: "mismatch"; message: string };

/** The answer a call gave the program, rebuilt from its record. */
export function savedAnswer(record: CallRecord): HostCallAnswer {
  if (record.error) return { ok: false, error: record.error };
  if (record.status === "denied") {
    return { ok: false, error: { name: "CallDenied", message: deniedMessage(record.denyMessage) } };
  }
  return { ok: true, value: (record.result ?? null) as JsonValue };
}

export function deniedMessage(personMessage: string | undefined): string {
  return personMessage ? `A person denied this call: ${personMessage}` : "A person denied this call.";
}

export class ReplayPlan {
  readonly #byIndex: Map<number, CallRecord>;
  /** Indexes of answered calls in the order their answers reached the program. */
  readonly #order: number[];
  #next = 0;
  readonly #waiting = new Map<number, () => void>();
  /** The highest completion order seen, so live calls continue the sequence. */
  readonly lastCompletion: number;

  constructor(saved: CallRecord[]) {
    this.#byIndex = new Map(saved.map((c) => [c.index, c]));
    const answered = saved.filter((c) => c.completionOrder !== undefined && c.completionOrder !== null);
    this.#order = answered.sort((a, b) => a.completionOrder! - b.completionOrder!).map((c) => c.index);
    this.lastCompletion = answered.reduce((max, c) => Math.max(max, c.completionOrder!), -1);
  }

  get savedCount(): number {
    return this.#byIndex.size;
  }

  /** What to do with call `index`, whose canonical arguments hash to `signature`. */
  step(index: number, signature: string, describe: () => string): ReplayStep {
    const record = this.#byIndex.get(index);
    if (!record) return { kind: "live" };
    if (record.argumentsHash !== signature) {
      return {
        kind: "mismatch",
        message: `call ${index} is now ${describe()}, but the saved run made ${record.operation} with other arguments there; nothing was sent. Replay needs the same calls in the same order: keep the program deterministic, or re-run it fresh.`,
      };
    }
    if (this.#order.includes(index)) {
      const answer = new Promise<HostCallAnswer>((resolve) => this.#waiting.set(index, () => resolve(savedAnswer(record))));
      this.#scheduleFlush();
      return { kind: "saved", answer, record };
    }
    if (record.status === "pending" && record.decision === "approved") return { kind: "approved", record };
    if (record.status === "denied" || (record.status === "pending" && record.decision === "denied")) {
      // Denied after every answer the program already had: it is the last to complete.
      const answer = new Promise<HostCallAnswer>((resolve) => this.#waiting.set(index, () => resolve(savedAnswer({ ...record, status: "denied" }))));
      this.#order.push(index);
      this.#scheduleFlush();
      return { kind: "saved", answer, record };
    }
    if (record.status === "in_flight" || record.status === "unknown") {
      return { kind: "mismatch", message: `call ${index} (${record.operation}) was sent but its outcome is unknown; it is never re-sent by itself. Check the upstream, then re-run the program fresh.` };
    }
    // Pending without a decision, or a call that never left the machine: run it again.
    return { kind: "live" };
  }

  /**
   * Deferred to a microtask so that the caller of step() is already awaiting
   * its answer: resolving in order then queues the continuations in order,
   * which is the order the answers reach the sandbox.
   */
  #scheduleFlush(): void {
    queueMicrotask(() => this.#flush());
  }

  /** Answers every started call whose turn has come, in original completion order. */
  #flush(): void {
    while (this.#next < this.#order.length) {
      const release = this.#waiting.get(this.#order[this.#next]!);
      if (!release) return;
      this.#waiting.delete(this.#order[this.#next]!);
      this.#next++;
      release();
    }
  }
}
