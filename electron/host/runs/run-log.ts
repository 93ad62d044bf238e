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
import type { CallRecord, PendingDecision, Plan } from "../../../shared/runs.ts";
import type { Redactor } from "../vault/redact.ts";
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
