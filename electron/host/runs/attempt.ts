/**
 * One pass of a program through the sandbox: each call it makes is replayed
 * from the saved record, or handed to the proxy's pipeline (proxy/pipeline.ts),
 * which owns a live call from its arguments to its record. When a call must
 * wait for a person (or replay finds a mismatch), the attempt stops taking new
 * calls, lets the calls already on the wire finish and be recorded, then ends
 * the run there.
 *
 * Every call the program attempts is recorded, whatever becomes of it: a name
 * that is no API call, arguments that could not cross, a failure of the host
 * itself. The one exception: a call started after the attempt halted for a
 * decision is not part of the run's history yet; the next attempt makes it
 * again, at the same index, and records it then.
 *
 * The run can end while a call is still on the wire (the program returned
 * without awaiting it, the wall clock, the call limit, a cancel). That call is
 * carried through, and when it ends its record and the run's stored envelope
 * say so (`endedAfterRun`): the program never saw that outcome, but the
 * upstream did get the request.
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../../shared/json.ts";
import type { CallRecord, CodeRun, PendingDecision } from "../../../shared/runs.ts";
import { reportInternalError } from "../common/host-log.ts";
import { canonicalJson } from "../proxy/canonical-json.ts";
import { runCall, type CallResult, type GuestCall, type PlannedCallCheck, type ProxyDeps, type RunEnded } from "../proxy/pipeline.ts";
import type { ApiTarget, CallLog } from "../proxy/types.ts";
import type { HostCallAnswer } from "../sandbox/types.ts";
import { parseCallName } from "../tools/execute-prelude.ts";
import { Forecast } from "./forecast.ts";
import type { PlanApplier } from "./plan-apply.ts";
import type { ReplayPlan } from "./replay.ts";
import type { RunLog } from "./run-log.ts";
import type { RunWorld } from "./run-world.ts";
import { definitionOf } from "./run-world.ts";
import type { CallsOnTheWire } from "./wire.ts";

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
  /** The APIs the program sees in this process; `proxy.target` looks them up here. */
  world: RunWorld;
  /** This process's calls on the wire; each send listens to its signal (aborted when the process stops waiting). */
  wire: CallsOnTheWire;
  /** A call ended after the run did; its record and the run's envelope were updated. */
  onLateCall?: () => void;
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
export function callSignature(guest: Pick<GuestCall, "api" | "op" | "args">): string {
  return createHash("sha256").update(canonicalJson({ api: guest.api, op: guest.op, args: guest.args })).digest("hex");
}

/** A host call as the sandbox hands it over. */
export interface HostCall {
  index: number;
  name: string;
  args: JsonValue;
  refused?: string;
}

export class Attempt {
  readonly #o: AttemptOptions;
  /** Host notes for the run's logs (validation warnings). */
  readonly notes: string[] = [];
  #stop: AttemptStop | undefined;
  #forecast: Forecast | undefined;
  #ended: RunEnded | undefined;
  #inFlight = 0;
  #releaseStop: (() => void) | undefined;
  readonly #stopAnswer: Promise<HostCallAnswer>;
  readonly #apisRecorded = new Set<string>();
  /** What the pipeline writes through: the run's log, which after the run ended also brings the envelope up to date. */
  readonly #callLog: CallLog;

  constructor(options: AttemptOptions) {
    this.#o = options;
    this.#stopAnswer = new Promise((resolve) => {
      this.#releaseStop = () => resolve({ suspend: true });
    });
    const log = options.log;
    this.#callLog = {
      recordCall: (call) => (this.#ended ? this.#late(() => log.recordLateCall(call)) : log.recordCall(call)),
      finishCall: (index, patch) => (this.#ended ? this.#late(() => log.finishLateCall(index, patch)) : log.finishCall(index, patch)),
      replaceCall: (call) => log.replaceCall(call),
      putPendingDecision: (decision) => log.putPendingDecision(decision),
      isAllowed: (api, operationId) => log.isAllowed(api, operationId),
    };
  }

  /**
   * The run has ended (its outcome is being stored): calls still on the wire
   * are recorded as they end, and calls not yet sent still go unless the run
   * was cancelled or they need a person (see RunEnded in proxy/pipeline.ts).
   */
  end(ended: RunEnded): void {
    this.#ended ??= ended;
  }

  #late<T>(write: () => T): T {
    const written = write();
    this.#o.onLateCall?.();
    return written;
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
  async onCall(call: HostCall): Promise<HostCallAnswer> {
    let answer: HostCallAnswer;
    try {
      answer = await this.#route(call);
    } catch (err) {
      // A bug or a store that cannot be written: the program gets a sentence with an error id, the host log the detail.
      const error = { name: "CallFailed", message: reportInternalError(this.#o.hostLog, `call ${call.index} could not be handled`, err), details: { reason: "internal" } };
      this.#recordFailure(call, error);
      answer = { ok: false, error };
    }
    return "suspend" in answer ? answer : (this.#o.log.redactor.redactJson(answer as unknown as JsonValue) as unknown as HostCallAnswer);
  }

  async #route(call: HostCall): Promise<HostCallAnswer> {
    // Not recorded: this call is made again, at this index, by the attempt after the decision (see the file's comment).
    if (this.#stop) return this.#stopAnswer;
    const parsed = parseCallName(call.name);
    const guest: GuestCall | undefined = parsed && { ...parsed, args: call.args, ...(call.refused ? { refused: call.refused } : {}) };
    // Forecasting: everything from here on is answered by the forecast; nothing is recorded as a call of the run.
    if (this.#forecast && guest) return this.#forecast.onCall(call.index, guest);
    const signature = callSignature(guest ?? unnamedCall(call));
    const step = this.#o.plan.step(call.index, signature, () => (guest ? `apis.${guest.api}.${guest.op}(...)` : call.name.slice(0, 200)));
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
      case "live":
        if (!guest) return this.#refuseUnnamed(call, signature);
        if (step.kind === "approved" && step.record.planWrite !== undefined) applier?.noteWrite(step.record.planWrite, call.index);
        return this.#live(call.index, guest, signature, step.kind === "approved" ? step.record : undefined);
    }
  }

  /** A name that is no `apis.<api>.<operation>` (a program calling `__host.call` itself): refused, and recorded. */
  #refuseUnnamed(call: HostCall, signature: string): HostCallAnswer {
    const error = { name: "CallRejected" as const, message: `${JSON.stringify(call.name.slice(0, 200))} is not an API call (calls are apis.<api>.<operation>(...)); nothing was sent` };
    this.#callLog.recordCall({ index: call.index, api: "", operation: call.name.slice(0, 200), arguments: call.args, argumentsHash: signature, status: "rejected", error });
    return { ok: false, error };
  }

  /**
   * A call whose handling failed inside the host still gets a record that says
   * so: a new one if it had none, or its open one settled (`unknown` if it may
   * have been sent). Best effort: when the store itself is failing, the host
   * log has the detail.
   */
  #recordFailure(call: HostCall, error: { name: string; message: string; details?: JsonValue }): void {
    try {
      const existing = this.#o.log.call(call.index);
      if (!existing) {
        // After a halt a call is not part of the run's history yet (see the file's comment).
        if (this.#stop) return;
        const parsed = parseCallName(call.name);
        const signature = callSignature(parsed ? { ...parsed, args: call.args } : unnamedCall(call));
        this.#callLog.recordCall({ index: call.index, api: parsed?.api ?? "", operation: parsed ? `apis.${parsed.api}.${parsed.op}` : call.name.slice(0, 200), arguments: call.args, argumentsHash: signature, status: "rejected", error });
      } else if (existing.status === "in_flight" || existing.status === "pending") {
        this.#callLog.finishCall(call.index, { status: existing.status === "in_flight" ? "unknown" : "rejected", error });
      }
    } catch (err) {
      reportInternalError(this.#o.hostLog, `call ${call.index}'s failure could not be recorded`, err);
    }
  }

  /** Records in this run the parent's call that was just replayed. */
  #copySaved(index: number): void {
    const parentCall = this.#o.log.store.getCall(this.#o.run.parentId!, index);
    if (!parentCall) return;
    const { completionOrder: _order, startedAt: _s, finishedAt: _f, runId: _run, ...rest } = parentCall;
    this.#o.log.recordCall({ ...rest, replayedFrom: parentCall.replayedFrom ?? parentCall.runId });
  }

  /** Keeps the definition of each API this run calls, once per attempt: what another process needs to continue the run. */
  #recordApi(api: string): void {
    if (this.#apisRecorded.has(api)) return;
    this.#apisRecorded.add(api);
    const target = this.#o.world.target(api);
    if (target) this.#o.log.recordApi(definitionOf(target));
  }

  async #live(index: number, guest: GuestCall, signature: string, approved?: CallRecord): Promise<HostCallAnswer> {
    const { log, run, world, wire } = this.#o;
    // An API the run used that is gone since: refused like arguments that could not cross, and recorded.
    const gone = world.unavailable(guest.api);
    if (!gone) this.#recordApi(guest.api);
    // In this process's hands from here until it is recorded as ended, even if the run ends first.
    const release = wire.enter({ runId: run.id, index, operation: `${guest.api}.${guest.op}`, timeoutMs: world.target(guest.api)?.config.timeoutMs ?? 0 });
    const result = await runCall(this.#o.proxy, {
      runId: run.id,
      policy: run.policy,
      source: run.source,
      log: this.#callLog,
      redactor: log.redactor,
      signal: wire.signal,
      ...(this.#o.preApprovedBy ? { preApprovedBy: this.#o.preApprovedBy } : {}),
      decisionTtlMs: this.#o.decisionTtlMs,
      now: this.#o.now,
      stopped: () => this.#stop !== undefined,
      runEnded: () => this.#ended,
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
    }, { index, guest: gone && !guest.refused ? { ...guest, refused: gone } : guest, signature, ...(approved ? { approved } : {}) }).finally(release);
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
        { deps: this.#o.proxy, policy: this.#o.run.policy, redactor: this.#o.log.redactor, signal: this.#o.wire.signal, isAllowed: (api, op) => this.#o.log.isAllowed(api, op) },
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

/** A call whose name is no API call, as replay identifies it. */
function unnamedCall(call: HostCall): Pick<GuestCall, "api" | "op" | "args"> {
  return { api: "", op: call.name, args: call.args };
}
