/**
 * The one way a run's record is written: every call, decision and outcome a run
 * stores passes its redactor here, whoever produced it (the proxy, the program's
 * logs and result, an error the host built, a person's deny message). The store
 * itself keeps what it is given, so anything written around this class would be
 * written raw; the engine and the proxy only ever hold a RunLog.
 *
 * What the store keeps is what every other face shows (envelopes, `runs show`,
 * HAR, MCP resources, the bridge), so redacting here covers them all.
 */
import type { Envelope } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { CallRecord, PendingDecision, Plan, RunApiDefinition } from "../../../shared/runs.ts";
import type { Redactor } from "../vault/redact.ts";
import { withCurrentCalls } from "./envelope.ts";
import type { CallPatch, CodeRunStore, NewCall, RunPatch } from "./store.ts";

export class RunLog {
  readonly runId: string;
  readonly store: CodeRunStore;
  readonly redactor: Redactor;

  constructor(store: CodeRunStore, runId: string, redactor: Redactor) {
    this.store = store;
    this.runId = runId;
    this.redactor = redactor;
  }

  recordCall(call: Omit<NewCall, "runId">): void {
    this.store.insertCall({ ...this.#clean(call), runId: this.runId });
  }

  /** False when the run has no such call. */
  finishCall(index: number, patch: CallPatch): boolean {
    return this.store.updateCall(this.runId, index, this.#clean(patch));
  }

  /**
   * Finishes a call that ended after its run did (the program never saw the
   * outcome): the record says so, and the run's stored envelope is brought up
   * to date, in one transaction, so that no face reads one without the other.
   */
  finishLateCall(index: number, patch: CallPatch): boolean {
    return this.store.transaction(() => {
      // Only an outcome from the upstream (an answer, or a failure after sending) ended after the run; an
      // abandoned call is only `unknown`, and one held back unsent is only `rejected`.
      const reached = typeof patch.status === "number" || patch.status === "failed";
      const call = this.finishCall(index, reached ? { ...patch, endedAfterRun: true } : patch);
      this.refreshEnvelope();
      return call;
    });
  }

  /** Records a call that the run's program started but that got no further before the run ended, and shows it in the envelope. */
  recordLateCall(call: Omit<NewCall, "runId">): void {
    this.store.transaction(() => {
      this.recordCall(call);
      this.refreshEnvelope();
    });
  }

  /** Rebuilds the calls of the run's stored envelope from the records (its outcome stays as it was). */
  refreshEnvelope(): Envelope | undefined {
    const envelope = this.store.getRun(this.runId)?.envelope;
    if (!envelope) return undefined;
    return this.updateRun({ envelope: withCurrentCalls(envelope, this.calls()) });
  }

  /** Keeps the definition of an API as this run used it (what any process needs to continue the run). */
  recordApi(definition: RunApiDefinition): void {
    this.store.recordRunApi(this.runId, this.#clean(definition));
  }

  /** Replaces a call that never left the machine (a decision asked again) with a fresh record. */
  replaceCall(call: Omit<NewCall, "runId">): void {
    this.store.transaction(() => {
      if (!this.store.deleteUnsentCall(this.runId, call.index)) throw new Error(`call ${call.index} of run ${this.runId} may have been sent; it cannot be replaced`);
      this.recordCall(call);
    });
  }

  putPendingDecision(decision: PendingDecision): PendingDecision {
    const clean = { ...this.#clean(decision), runId: this.runId };
    this.store.putPendingDecision(clean);
    return clean;
  }

  /** Stores the run's plan (the writes its forecast made), waiting for a person; returns it as stored. */
  putPlan(plan: Plan): Plan {
    const clean = this.redactor.redactJson(plan as unknown as JsonValue) as unknown as Plan;
    this.store.putPlan(this.runId, clean);
    return clean;
  }

  /** Stores the run's new state; returns the envelope as stored (redacted), when one was given. */
  updateRun(patch: RunPatch): Envelope | undefined {
    const clean = this.#clean(patch);
    this.store.updateRun(this.runId, clean);
    return clean.envelope ?? undefined;
  }

  isAllowed(api: string, operationId: string): boolean {
    return this.store.isAllowed(api, operationId);
  }

  calls(): CallRecord[] {
    return this.store.getCalls(this.runId);
  }

  call(index: number): CallRecord | undefined {
    return this.store.getCall(this.runId, index);
  }

  /**
   * Redacts a record field by field, every string in it, keys included. A field
   * the redactor cannot walk (nested deeper than the stack) is stored as the
   * redaction-failed marker, never raw, and the rest of the record is kept.
   */
  #clean<T extends object>(record: T): T {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      out[key] = value === undefined ? undefined : this.redactor.redactJson(value as JsonValue);
    }
    return out as T;
  }
}
