/**
 * The forecast: once a program reaches its first write that needs a person
 * (and the run plans its writes), the attempt does not stop there. From that
 * call on, every write (whatever would have decided it: a person, a rule) is
 * not sent; it gets a forecast answer shaped by its spec and becomes a write of
 * the plan. Reads are sent as usual, unless their arguments hold a forecast
 * value (a read of the item a planned write would create): those get a forecast
 * too, since the upstream cannot know that value. Nothing after the first write
 * is recorded as a call of the run: the plan is the record, and apply makes the
 * real calls, live, from the top.
 *
 * The forecast is redacted like everything else on its way out (the attempt's
 * exit into the sandbox; the RunLog when the plan is stored).
 */
import type { JsonValue } from "../../../shared/json.ts";
import type { CallEntry } from "../proxy/types.ts";
import type { Plan, PlanDependency, PlanWrite, RecordedRequest } from "../../../shared/runs.ts";
import { requestFingerprint } from "../proxy/approval.ts";
import { forecastResponse, ForecastLedger, type ForecastOrigin } from "../proxy/forecast-response.ts";
import { prepareCall, sendPrepared, showRequest, type GuestCall, type PreparedCall, type ProxyDeps } from "../proxy/pipeline.ts";
import { isWrite } from "../proxy/policy.ts";
import { CallFailure, type CallAnswer } from "../proxy/types.ts";
import type { RunOutcome } from "../sandbox/types.ts";
import type { Redactor } from "../vault/redact.ts";

export interface ForecastOptions {
  deps: ProxyDeps;
  policy: "read_only" | "all";
  redactor: Redactor;
  signal: AbortSignal;
  isAllowed(api: string, operationId: string): boolean;
}

export class Forecast {
  readonly #o: ForecastOptions;
  readonly #ledger = new ForecastLedger();
  readonly #writes: PlanWrite[] = [];
  readonly #reads: Plan["reads"] = [];
  /** The first write: its recorded call is the one the run waits on. */
  readonly first: { index: number; described: CallEntry; shown: RecordedRequest };
  readonly #firstAnswer: CallAnswer;

  constructor(options: ForecastOptions, first: { index: number; guest: GuestCall; prepared: PreparedCall; described: CallEntry; shown: RecordedRequest }) {
    this.#o = options;
    this.first = { index: first.index, described: first.described, shown: first.shown };
    this.#firstAnswer = this.#plan(first.index, first.guest, first.prepared, first.shown);
  }

  /** What the first write answers the program. */
  get firstAnswer(): CallAnswer {
    return this.#firstAnswer;
  }

  /** A write that reached the pipeline alongside the first (a Promise.all of writes): a write of the plan. */
  join(index: number, guest: GuestCall, prepared: PreparedCall, shown: RecordedRequest): CallAnswer {
    return this.#plan(index, guest, prepared, shown);
  }

  /** A call the program made after the forecast began. */
  async onCall(index: number, guest: GuestCall): Promise<CallAnswer> {
    let prepared: PreparedCall;
    try {
      if (guest.refused) throw new CallFailure("CallRejected", `${guest.refused}; nothing was sent`);
      // Whatever would decide a write later (a person, a rule) decides it as part of the plan: prepare as if approved.
      prepared = await prepareCall(this.#o.deps, guest, { policy: this.#o.policy, preApproved: true, allowedByRule: (api, op) => this.#o.isAllowed(api, op) });
    } catch (err) {
      const failure = err instanceof CallFailure ? err : new CallFailure("CallFailed", "the workbench could not forecast this call", { reason: "internal" });
      return { ok: false, error: failure.callError };
    }
    const operation = `${prepared.operation.method.toUpperCase()} ${prepared.operation.path}`;
    if (isWrite(prepared.operation) || prepared.references.length > 0) return this.#plan(index, guest, prepared, showRequest(prepared, this.#o.deps.resolver));
    if (this.#holdsForecast(guest.args)) {
      this.#reads.push({ index, api: guest.api, operation, sent: false });
      return { ok: true, value: forecastResponse(prepared.target.artifact, prepared.operation, 0, this.#ledger) as unknown as JsonValue };
    }
    try {
      const sent = await sendPrepared(this.#o.deps, prepared, this.#o.redactor, this.#o.signal);
      this.#reads.push({ index, api: guest.api, operation, sent: true, status: sent.response.status });
      return { ok: true, value: sent.response as unknown as JsonValue };
    } catch (err) {
      const failure = err instanceof CallFailure ? err : new CallFailure("CallFailed", "the workbench could not send this call", { reason: "internal" });
      this.#reads.push({ index, api: guest.api, operation, sent: true, status: "failed" });
      return { ok: false, error: failure.callError };
    }
  }

  /** The plan, once the program ended (finished, or stopped on a forecast value). */
  finish(outcome: RunOutcome): Plan {
    const ended: Plan["ended"] = outcome.status === "failed" ? { kind: "failed", reason: outcome.error.reason, name: outcome.error.name, message: outcome.error.message } : { kind: "completed" };
    const plan: Plan = { writes: this.#writes, ended, reads: this.#reads, logs: outcome.logs };
    if (outcome.status === "completed") plan.result = outcome.result;
    return plan;
  }

  #plan(index: number, guest: GuestCall, prepared: PreparedCall, shown: RecordedRequest): CallAnswer {
    const write = this.#writes.length + 1;
    const forecast = forecastResponse(prepared.target.artifact, prepared.operation, write, this.#ledger) as unknown as JsonValue;
    const entry: PlanWrite = {
      write,
      index,
      api: guest.api,
      op: guest.op,
      operation: `${prepared.operation.method.toUpperCase()} ${prepared.operation.path}`,
      operationId: prepared.operation.id,
      arguments: guest.args,
      request: shown,
      requestFingerprint: requestFingerprint(shown, prepared.target),
      dependsOn: this.#dependencies(guest.args),
      forecast,
    };
    if (prepared.references.length) entry.note = `carries ${prepared.references.map((r) => `⟦vault:${r}⟧`).join(", ")}`;
    this.#writes.push(entry);
    return { ok: true, value: forecast };
  }

  /** Whether any value in `args` came from a forecast (a write's, or a forecast read's). */
  #holdsForecast(args: JsonValue): boolean {
    let found = false;
    walk(args, [], (value) => {
      found ||= this.#ledger.originOf(value) !== undefined || (typeof value === "string" && this.#ledger.within(value).length > 0);
    });
    return found;
  }

  /** The parts of `args` that hold a value from an earlier write's forecast. */
  #dependencies(args: JsonValue): PlanDependency[] {
    if (this.#ledger.size === 0) return [];
    const found: PlanDependency[] = [];
    const from = (origin: ForecastOrigin) => {
      const source = this.#writes[origin.write - 1];
      return { write: origin.write, index: source?.index ?? -1, operation: source?.operation ?? "?", path: origin.path };
    };
    walk(args, [], (value, at) => {
      const origin = this.#ledger.originOf(value);
      if (origin && origin.write > 0) found.push({ at: at.join("."), from: from(origin), forecast: value as string | number });
      else if (typeof value === "string") {
        for (const inner of this.#ledger.within(value)) {
          if (inner.origin.write > 0) found.push({ at: at.join("."), from: from(inner.origin), forecast: /^\d+$/.test(inner.value) ? Number(inner.value) : inner.value, within: true });
        }
      }
    });
    return found;
  }
}

/** Visits every leaf of a JSON value with its path (object keys, array indexes as strings). */
export function walk(value: JsonValue, path: string[], visit: (leaf: JsonValue, at: string[]) => void): void {
  if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, String(i)], visit));
  else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) walk(item, [...path, key], visit);
  else visit(value, path);
}
