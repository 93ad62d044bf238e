/**
 * One pass of a program through the sandbox: each call it makes is replayed
 * from the saved record, or handed to the proxy's pipeline (proxy/pipeline.ts),
 * which owns a live call from its arguments to its record. When a call must
 * wait for a person (or replay finds a mismatch), the attempt stops taking new
 * calls, lets the calls already on the wire finish and be recorded, then ends
 * the run there.
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../../shared/json.ts";
import type { CallRecord, CodeRun, PendingDecision } from "../../../shared/runs.ts";
import { reportInternalError } from "../common/host-log.ts";
import { canonicalJson } from "../proxy/canonical-json.ts";
import { runCall, type CallResult, type GuestCall, type PlannedCallCheck, type ProxyDeps } from "../proxy/pipeline.ts";
import type { ApiTarget } from "../proxy/types.ts";
import type { HostCallAnswer } from "../sandbox/types.ts";
import { parseCallName } from "../tools/execute-prelude.ts";
import { Forecast } from "./forecast.ts";
import type { PlanApplier } from "./plan-apply.ts";
import type { ReplayPlan } from "./replay.ts";
import type { RunLog } from "./run-log.ts";

export type AttemptStop =
  | { kind: "pending"; index: number }
  | { kind: "mismatch"; message: string }
  | { kind: "cancelled"; message: string };

export interface AttemptOptions {
  run: CodeRun;
  /** The run's record; it redacts everything it stores. */
  log: RunLog;
  proxy: ProxyDeps;
  plan: ReplayPlan;
  /** Saved answers come from the parent run: record a copy of each in this run. */
  copySaved: boolean;
  /** Writes were approved up front (`--yes`): sent without stopping, recorded as approved by this name. */
  preApprovedBy?: string;
  signal: AbortSignal;
  decisionTtlMs: number;
  now: () => number;
  onDecisionRequested: (decision: PendingDecision) => void;
  /** The host log, for internal failures. */
  hostLog: (message: string) => void;
  /** The run plans its writes: the first write that needs a person starts a forecast (see forecast.ts). */
  planning?: boolean;
  /** A plan was approved: writes that would ask a person are checked against it (see plan-apply.ts). */
  applier?: PlanApplier;
}

/** sha256 of what the program asked for, as it asked: replay compares it call by call. */
export function callSignature(guest: GuestCall): string {
  return createHash("sha256").update(canonicalJson({ api: guest.api, op: guest.op, args: guest.args })).digest("hex");
}

export class Attempt {
  readonly #o: AttemptOptions;
  /** Host notes for the run's logs (validation warnings). */
  readonly notes: string[] = [];
  #stop: AttemptStop | undefined;
  #forecast: Forecast | undefined;
  #inFlight = 0;
  #releaseStop: (() => void) | undefined;
  readonly #stopAnswer: Promise<HostCallAnswer>;

  constructor(options: AttemptOptions) {
    this.#o = options;
    this.#stopAnswer = new Promise((resolve) => {
      this.#releaseStop = () => resolve({ suspend: true });
    });
  }

  get stop(): AttemptStop | undefined {
    return this.#stop;
  }

  /** Set once the program reached its first write that needs a person, under planning. */
  get forecast(): Forecast | undefined {
    return this.#forecast;
  }

  /** Ends the attempt at the next opportunity: once nothing is on the wire. */
  halt(stop: AttemptStop): Promise<HostCallAnswer> {
    this.#stop ??= stop;
    this.#maybeRelease();
    return this.#stopAnswer;
  }

  #maybeRelease(): void {
    if (this.#stop && this.#inFlight === 0) this.#releaseStop?.();
  }

  /**
   * The sandbox's host-call handler, and the one exit into the sandbox: every
   * answer, live or replayed, value or error, passes the run's redactor here.
   */
  async onCall(call: { index: number; name: string; args: JsonValue; refused?: string }): Promise<HostCallAnswer> {
    let answer: HostCallAnswer;
    try {
      answer = await this.#route(call);
    } catch (err) {
      // A bug or a store that cannot be written: the program gets a sentence with an error id, the host log the detail.
      answer = { ok: false, error: { name: "CallFailed", message: reportInternalError(this.#o.hostLog, `call ${call.index} could not be handled`, err), details: { reason: "internal" } } };
    }
    return "suspend" in answer ? answer : (this.#o.log.redactor.redactJson(answer as unknown as JsonValue) as unknown as HostCallAnswer);
  }

  async #route(call: { index: number; name: string; args: JsonValue; refused?: string }): Promise<HostCallAnswer> {
    if (this.#stop) return this.#stopAnswer;
    const parsed = parseCallName(call.name);
    if (!parsed) return { ok: false, error: { name: "CallRejected", message: `unknown host function ${call.name}` } };
    const guest: GuestCall = { ...parsed, args: call.args, ...(call.refused ? { refused: call.refused } : {}) };
    // Forecasting: everything from here on is answered by the forecast; nothing is recorded as a call of the run.
    if (this.#forecast) return this.#forecast.onCall(call.index, guest);
    const signature = callSignature(guest);
    const step = this.#o.plan.step(call.index, signature, () => `apis.${guest.api}.${guest.op}(...)`);
    const { applier } = this.#o;
    switch (step.kind) {
      case "mismatch":
        return this.halt({ kind: "mismatch", message: step.message });
      case "saved": {
        if (step.record.planWrite !== undefined) applier?.noteWrite(step.record.planWrite, call.index);
        const answer = await step.answer;
        if ("ok" in answer) applier?.answered(call.index, answer);
        if (this.#o.copySaved) this.#copySaved(call.index);
        return this.#stop ? this.#stopAnswer : answer;
      }
      case "approved":
        if (step.record.planWrite !== undefined) applier?.noteWrite(step.record.planWrite, call.index);
        return this.#live(call.index, guest, signature, step.record);
      case "live":
        return this.#live(call.index, guest, signature);
    }
  }

  /** Records in this run the parent's call that was just replayed. */
  #copySaved(index: number): void {
    const parentCall = this.#o.log.store.getCall(this.#o.run.parentId!, index);
    if (!parentCall) return;
    const { completionOrder: _order, startedAt: _s, finishedAt: _f, runId: _run, ...rest } = parentCall;
    this.#o.log.recordCall({ ...rest, replayedFrom: parentCall.replayedFrom ?? parentCall.runId });
  }

  async #live(index: number, guest: GuestCall, signature: string, approved?: CallRecord): Promise<HostCallAnswer> {
    const { log, run } = this.#o;
    const result = await runCall(this.#o.proxy, {
      runId: run.id,
      policy: run.policy,
      source: run.source,
      log,
      redactor: log.redactor,
      signal: this.#o.signal,
      ...(this.#o.preApprovedBy ? { preApprovedBy: this.#o.preApprovedBy } : {}),
      decisionTtlMs: this.#o.decisionTtlMs,
      now: this.#o.now,
      stopped: () => this.#stop !== undefined,
      onWire: () => {
        this.#inFlight++;
        return () => {
          this.#inFlight--;
          this.#maybeRelease();
        };
      },
      onDecisionRequested: this.#o.onDecisionRequested,
      note: (message) => this.notes.push(message),
      ...(this.#o.planning ? { forecast: (target: ApiTarget) => this.#claimForecast(target) } : {}),
      ...(this.#o.applier ? { planVerdict: (check: PlannedCallCheck) => this.#o.applier!.verdict(check) } : {}),
    }, { index, guest, signature, ...(approved ? { approved } : {}) });
    if (result.kind === "stopped") return this.#stopAnswer;
    if (result.kind === "wait") return this.halt({ kind: "pending", index });
    if (result.kind === "forecast") return this.#startOrJoinForecast(index, guest, result);
    this.#o.applier?.answered(index, result.answer);
    return this.#stop ? this.#stopAnswer : result.answer;
  }

  /**
   * Synchronous, so that of two writes racing into the pipeline exactly one
   * begins the forecast. An API set to per-call approvals does not begin one.
   */
  #claimForecast(target: ApiTarget): "first" | "join" | undefined {
    if (this.#forecastClaimed) return "join";
    if (target.config.approvals === "per-call") return undefined;
    this.#forecastClaimed = true;
    return "first";
  }

  #forecastClaimed = false;
  readonly #joining: { index: number; guest: GuestCall; result: Extract<CallResult, { kind: "forecast" }>; resolve: (answer: HostCallAnswer) => void }[] = [];

  #startOrJoinForecast(index: number, guest: GuestCall, result: Extract<CallResult, { kind: "forecast" }>): Promise<HostCallAnswer> | HostCallAnswer {
    if (result.first) {
      this.#forecast = new Forecast(
        { deps: this.#o.proxy, policy: this.#o.run.policy, redactor: this.#o.log.redactor, signal: this.#o.signal, isAllowed: (api, op) => this.#o.log.isAllowed(api, op) },
        { index, guest, prepared: result.prepared, described: result.described, shown: result.shown },
      );
      for (const waiting of this.#joining.splice(0)) waiting.resolve(this.#forecast.join(waiting.index, waiting.guest, waiting.result.prepared, waiting.result.shown));
      return this.#forecast.firstAnswer;
    }
    // Raced the first: becomes a write of the plan once the forecast exists.
    if (this.#forecast) return this.#forecast.join(index, guest, result.prepared, result.shown);
    return new Promise((resolve) => this.#joining.push({ index, guest, result, resolve }));
  }
}
