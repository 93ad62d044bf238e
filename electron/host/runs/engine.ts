/**
 * The run engine: starts code runs, carries them through approvals and
 * replay, and records everything. An execute run goes: record the run → an
 * attempt in the sandbox → completed, failed, or pending on a person. A
 * decision finishes the waiting call's record and starts the next attempt from
 * the top with the same clock and seed; saved calls are replayed, never re-sent.
 */
import { randomInt } from "node:crypto";
import type { Envelope, RunFailureReason } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { ApprovalMode, CodeRun, PendingDecision, RunPolicy, RunSource } from "../../../shared/runs.ts";
import type { EventBus } from "../events.ts";
import { reportInternalError } from "../common/host-log.ts";
import type { ProxyDeps, RunEnded } from "../proxy/pipeline.ts";
import type { ApiTarget } from "../proxy/types.ts";
import { outcomeToEnvelope } from "../sandbox/envelope.ts";
import type { RunLimits, RunOutcome, RunRequest } from "../sandbox/types.ts";
import type { Redactor } from "../vault/redact.ts";
import { Attempt, type AttemptStop } from "./attempt.ts";
import { cancelElsewhere, CancelRequestWatch, describeRemoteCancel, type CancelResult } from "./cancel-requests.ts";
import { buildEnvelope } from "./envelope.ts";
import { askPerson } from "../proxy/pipeline.ts";
import type { Forecast } from "./forecast.ts";
import { PlanApplier } from "./plan-apply.ts";
import { deniedMessage, ReplayPlan } from "./replay.ts";
import { RunLog } from "./run-log.ts";
import { definitionOf, runWorld, type ApiSource, type RunWorld } from "./run-world.ts";
import type { CodeRunStore } from "./store.ts";
import { CallsOnTheWire } from "./wire.ts";

export interface SandboxRunner {
  run(request: RunRequest): Promise<RunOutcome>;
}

/** What the engine needs to build a program's world: its APIs, the `apis` prelude and globals over them, a redactor. */
export interface ProgramWorld {
  /** This process's APIs and the artifacts cache, from which each run's APIs are put together (run-world.ts). */
  apis: ApiSource;
  /** `opaque`: API names whose operations are unknown here; any operation name reaches the host. */
  executePrelude(apis: ApiTarget[], opaque: string[]): string;
  globals(apis: ApiTarget[]): Record<string, JsonValue>;
  redactor(): Redactor;
}

export interface RunEngineOptions {
  store: CodeRunStore;
  sandbox: SandboxRunner;
  proxy: ProxyDeps;
  world: ProgramWorld;
  bus: EventBus;
  now?: () => number;
  /** How long a pending decision waits before the run is cancelled. Default 30 minutes. */
  decisionTtlMs?: number;
  limits?: Partial<RunLimits>;
  log?: (message: string) => void;
}

export interface ExecuteRequest {
  code: string;
  policy: RunPolicy;
  source: RunSource;
  /** Writes approved up front (`--yes`): sent without stopping, recorded as approved by this name. */
  preApprovedBy?: string;
  limits?: Partial<RunLimits>;
  parentId?: string;
  clock?: number;
  seed?: number;
  /** Replay the parent's saved results where the calls match (default); `fresh` sends every call live. */
  fresh?: boolean;
  /** How writes are approved: a plan from a forecast of the whole program (default), or each write on its own. */
  approvals?: ApprovalMode;
}

export type DecisionKind = "approve" | "deny" | "always";

export interface DecisionRequest {
  decision: DecisionKind;
  message?: string;
  by: string;
  /** For a plan: approve only its first N writes (default: all). */
  writes?: number;
}

export type DecideResult =
  | { ok: true; decision: PendingDecision; continuation: Promise<Envelope> }
  | { ok: false; message: string };

export const DEFAULT_DECISION_TTL_MS = 30 * 60 * 1000;
/** After abandoning the calls on the wire: how long their pipelines get to record them `unknown`. */
const ABANDON_RECORD_MS = 2_000;

/** How an attempt's sandbox run ended, in the words a call refused after it uses (see RunEnded). */
function runEnded(outcome: RunOutcome, signal: AbortSignal): RunEnded {
  if (signal.aborted) return { why: `the run was ${(signal.reason as Error | undefined)?.message ?? "cancelled"}`, cancelled: true };
  if (outcome.status === "completed") return { why: "the run completed", cancelled: false };
  if (outcome.status === "failed") return { why: `the run ended (${outcome.error.reason})`, cancelled: false };
  return { why: "the run stopped", cancelled: false };
}

export class RunEngine {
  readonly #o: RunEngineOptions;
  readonly #now: () => number;
  readonly #running = new Map<string, AbortController>();
  /** Attempts still settling (for a clean stop). */
  readonly #attempts = new Set<Promise<unknown>>();
  readonly #wire = new CallsOnTheWire();
  readonly #cancelWatch: CancelRequestWatch;
  #expiryTimer: NodeJS.Timeout | undefined;

  constructor(options: RunEngineOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#cancelWatch = new CancelRequestWatch(options.store, () => this.#running, options.log ?? (() => {}));
  }

  get store(): CodeRunStore {
    return this.#o.store;
  }

  /** Starts an execute run and resolves with its envelope (completed, failed or pending). */
  async execute(request: ExecuteRequest): Promise<Envelope> {
    const parent = request.parentId ? this.#o.store.getRun(request.parentId) : undefined;
    if (request.parentId && !parent) return this.#unavailable(`no run ${request.parentId} to replay from`);
    const run = this.#o.store.createRun({
      ...(parent ? { parentId: parent.id } : {}),
      source: request.source,
      tool: "execute",
      policy: request.policy,
      approvals: request.approvals ?? parent?.approvals ?? "plan",
      program: request.code,
      clock: request.clock ?? parent?.clock ?? this.#now(),
      seed: request.seed ?? parent?.seed ?? randomInt(0, 2 ** 31),
    });
    this.#published(run.id);
    // A replay sees its parent's APIs as the parent used them (its one-off APIs included), and records them as its own.
    const world = this.#worldOf(parent?.id, parent ? `the run it replays (${parent.id})` : undefined);
    const log = this.#runLog(run.id);
    for (const target of world.apis) if (target.oneOff) log.recordApi(definitionOf(target));
    const saved = parent && !request.fresh ? this.#o.store.getCalls(parent.id) : [];
    return this.#attempt(run, new ReplayPlan(saved), saved.length > 0, request, world);
  }

  /** A person decides the call a run waits on; the run continues in the background. */
  decide(runId: string, request: DecisionRequest): DecideResult {
    const store = this.#o.store;
    const pending = store.getPendingDecision(runId);
    if (!pending) {
      const run = store.getRun(runId);
      return { ok: false, message: run ? `run ${runId} is ${run.status}, not waiting for a decision` : `no run ${runId}` };
    }
    if (pending.expiresAt && Date.parse(pending.expiresAt) <= this.#now()) {
      this.#expire(pending);
      return { ok: false, message: `the decision on run ${runId} expired at ${pending.expiresAt}; the run was cancelled` };
    }
    const waiting = store.getRun(runId);
    if (waiting?.status === "running") return { ok: false, message: `run ${runId} is still finishing the calls it had on the wire before it waits for this decision; decide again in a moment` };
    if (waiting?.status !== "pending") return { ok: false, message: `run ${runId} is ${waiting?.status ?? "gone"}, not waiting for a decision` };
    // The waiting call must be sendable from here: an approval of a call to an API that is gone would only be refused later.
    const world = this.#worldOf(runId);
    const gone = world.unavailable(pending.api);
    if (gone && request.decision !== "deny") {
      return { ok: false, message: `run ${runId} cannot be approved from here: ${gone}. Deny or cancel it instead: workbench deny ${runId}, or workbench runs cancel ${runId}` };
    }
    const at = new Date(this.#now()).toISOString();
    const log = this.#runLog(runId);
    // A plan: the decision covers its writes (all, or the first N); the waiting call is one of them.
    const planWrite = pending.plan?.writes.find((w) => w.index === pending.callIndex)?.write;
    // Deleting the pending row is the lock: only one decider wins, across processes. The decision and the
    // run going on are one transaction, so no other process sees a pending run whose decision is gone.
    const decided = store.transaction(() => {
      if (!store.deletePendingDecision(runId)) return false;
      if (pending.plan) {
        const total = pending.plan.writes.length;
        if (request.decision === "deny") store.decidePlan(runId, { denied: true, by: request.by, at });
        else store.decidePlan(runId, { approvedWrites: Math.max(1, Math.min(request.writes ?? total, total)), by: request.by, at });
      }
      if (request.decision === "deny") {
        log.finishCall(pending.callIndex, { status: "denied", decision: "denied", decidedBy: request.by, decidedAt: at, ...(request.message ? { denyMessage: request.message } : {}), error: { name: "CallDenied", message: deniedMessage(request.message) } });
      } else {
        log.finishCall(pending.callIndex, { decision: "approved", decidedBy: request.by, decidedAt: at, ...(planWrite !== undefined ? { planWrite } : {}) });
        if (request.decision === "always" && pending.operationId) store.addAllowRule({ api: pending.api, operationId: pending.operationId, createdBy: request.by });
      }
      log.updateRun({ status: "running" });
      return true;
    });
    if (!decided) return { ok: false, message: `run ${runId} was decided by someone else just now` };
    this.#o.bus.publish({ type: "decision.made", runId, callIndex: pending.callIndex, decision: request.decision === "deny" ? "denied" : "approved", by: request.by });
    const run = store.getRun(runId)!;
    this.#published(runId);
    const continuation = this.#attempt(run, new ReplayPlan(store.getCalls(runId)), false, { code: run.program, policy: run.policy, source: run.source, ...(run.approvals ? { approvals: run.approvals } : {}) }, world);
    return { ok: true, decision: pending, continuation };
  }

  /**
   * Stops a run from any process: one running here at once; a pending one by
   * withdrawing its decision; one that another process runs by asking that
   * process through the store (cancel-requests.ts), which stops it within
   * CANCEL_POLL_MS. Nothing more is sent for a cancelled run; a call already
   * on the wire is not cut (that would not unsend it, only lose its answer):
   * it is recorded when it ends.
   */
  async cancel(runId: string, by: string): Promise<CancelResult> {
    const local = this.#cancelHere(runId, by);
    if (local) return local;
    const remote = await cancelElsewhere(this.#o.store, runId, by);
    // It stopped for a decision meanwhile: withdraw that here.
    if (remote?.outcome === "now_pending") return this.#cancelHere(runId, by) ?? { ok: false, message: `run ${runId} stopped for a decision and was decided meanwhile; it was not cancelled` };
    return describeRemoteCancel(runId, remote, this.#o.store.getRun(runId)?.status);
  }

  /** Cancels a run this process is running, or a pending run; undefined when it is neither. */
  #cancelHere(runId: string, by: string): CancelResult | undefined {
    const controller = this.#running.get(runId);
    if (controller) {
      controller.abort(new Error(`cancelled by ${by}`));
      return { ok: true, message: `run ${runId} is being cancelled` };
    }
    const pending = this.#o.store.getPendingDecision(runId);
    if (pending && this.#o.store.deletePendingDecision(runId)) {
      this.#finishCancelled(pending, `cancelled by ${by} while waiting for a decision`, "cancelled", by);
      return { ok: true, message: `run ${runId} cancelled` };
    }
    return this.#cancelStalePending(runId, by);
  }

  /**
   * A run left `pending` with no decision waiting (one was taken, and the
   * process that took it stopped before the run went on, in a store from
   * before decisions were one transaction): nothing can continue it, so a
   * cancel ends it.
   */
  #cancelStalePending(runId: string, by: string): CancelResult | undefined {
    const store = this.#o.store;
    const log = this.#runLog(runId);
    const envelope = store.transaction(() => {
      const run = store.getRun(runId);
      if (run?.status !== "pending" || store.getPendingDecision(runId)) return undefined;
      const error = { reason: "Cancelled" as const, name: "Cancelled", message: `cancelled by ${by}; no decision was waiting any more` };
      return log.updateRun({ status: "cancelled", failureReason: "Cancelled", envelope: buildEnvelope({ runId, calls: log.calls(), logs: run.logs, outcome: { error } }) });
    });
    if (!envelope) return undefined;
    this.#finished(runId, envelope);
    return { ok: true, message: `run ${runId} cancelled` };
  }

  /** Calls this process has on the wire, including those of runs that have ended: what a command waits for before it exits. */
  get wire(): CallsOnTheWire {
    return this.#wire;
  }

  /**
   * Brings the stored envelopes of these runs up to date with their calls'
   * records (after crash recovery turned calls `unknown`). Runs still going,
   * and interrupted runs, whose envelope is not their outcome, are skipped.
   */
  refreshEnvelopes(runIds: Iterable<string>): void {
    for (const runId of new Set(runIds)) {
      const status = this.#o.store.getRun(runId)?.status;
      if (status === "completed" || status === "failed" || status === "cancelled") this.#runLog(runId).refreshEnvelope();
    }
  }

  /** Cancels every run whose decision has expired. Cheap; call it often (a timer, or before CLI commands). */
  expireDue(): string[] {
    const now = this.#now();
    const expired: string[] = [];
    for (const pending of this.#o.store.listPendingDecisions()) {
      if (pending.expiresAt && Date.parse(pending.expiresAt) <= now && this.#o.store.deletePendingDecision(pending.runId)) {
        this.#finishCancelled(pending, `no decision was made before ${pending.expiresAt}; the waiting call was not sent`, "expired", "expiry");
        expired.push(pending.runId);
      }
    }
    return expired;
  }

  #expire(pending: PendingDecision): void {
    if (this.#o.store.deletePendingDecision(pending.runId)) {
      this.#finishCancelled(pending, `no decision was made before ${pending.expiresAt}; the waiting call was not sent`, "expired", "expiry");
    }
  }

  startExpiryTimer(everyMs = 5_000): void {
    this.#expiryTimer ??= setInterval(() => this.expireDue(), everyMs);
    this.#expiryTimer.unref();
  }

  /**
   * Stops everything: runs going here end `Cancelled`, and calls still on the
   * wire are abandoned and recorded `unknown` (wait for them first with
   * `wire.idle`). Resolves once all of that is stored.
   */
  async stop(reason = "the workbench is shutting down"): Promise<void> {
    if (this.#expiryTimer) clearInterval(this.#expiryTimer);
    this.#expiryTimer = undefined;
    this.#cancelWatch.stop();
    for (const controller of this.#running.values()) controller.abort(new Error(reason));
    this.#wire.abandon(`${reason}; the workbench stopped waiting`);
    await Promise.allSettled([...this.#attempts]);
    await this.#wire.idle(ABANDON_RECORD_MS);
  }

  #finishCancelled(pending: PendingDecision, message: string, decision: "expired" | "cancelled", by: string): void {
    const store = this.#o.store;
    const log = this.#runLog(pending.runId);
    const at = new Date(this.#now()).toISOString();
    if (pending.plan) store.decidePlan(pending.runId, { denied: true, by, at });
    log.finishCall(pending.callIndex, { status: "denied", decision: decision === "expired" ? "expired" : "denied", decidedBy: by, decidedAt: at });
    const run = store.getRun(pending.runId);
    const envelope = log.updateRun({
      status: "cancelled",
      failureReason: "Cancelled",
      envelope: buildEnvelope({ runId: pending.runId, calls: log.calls(), logs: run?.logs ?? [], outcome: { error: { reason: "Cancelled", name: "Cancelled", message } } }),
    })!;
    this.#o.bus.publish({ type: "decision.made", runId: pending.runId, callIndex: pending.callIndex, decision, by });
    this.#finished(pending.runId, envelope);
  }

  /** The one way this engine writes a run: through a RunLog that redacts with the vault's secrets. */
  #runLog(runId: string): RunLog {
    return new RunLog(this.#o.store, runId, this.#o.world.redactor());
  }

  /** The APIs a run sees here: this process's, with those the run (or the run it replays) recorded put back (run-world.ts). */
  #worldOf(runId: string | undefined, whose?: string): RunWorld {
    return runWorld(runId ? this.#o.store.getRunApis(runId) : [], this.#o.world.apis, whose);
  }

  #attempt(run: CodeRun, plan: ReplayPlan, copySaved: boolean, request: Pick<ExecuteRequest, "code" | "policy" | "source" | "preApprovedBy" | "limits" | "approvals">, world: RunWorld): Promise<Envelope> {
    const controller = new AbortController();
    this.#running.set(run.id, controller);
    this.#cancelWatch.wake();
    const settled = this.#runAttempt(run, plan, copySaved, request, world, controller).finally(() => {
      this.#running.delete(run.id);
      this.#attempts.delete(settled);
    });
    this.#attempts.add(settled);
    return settled;
  }

  async #runAttempt(run: CodeRun, plan: ReplayPlan, copySaved: boolean, request: Pick<ExecuteRequest, "code" | "policy" | "source" | "preApprovedBy" | "limits">, world: RunWorld, controller: AbortController): Promise<Envelope> {
    const hostLog = this.#o.log ?? (() => {});
    // One RunLog for the whole attempt: its redactor learns the credentials the calls use, and the outcome is redacted with them.
    const log = this.#runLog(run.id);
    // The APIs as this run sees them (its recorded definitions put back where this process lacks them).
    const proxy = { ...this.#o.proxy, target: (name: string) => world.target(name) };
    // An approved plan is applied; otherwise, writes are planned unless they are approved up front or one by one.
    const stored = this.#o.store.getPlan(run.id);
    const applier = stored?.status === "approved" ? new PlanApplier(stored, proxy, run.policy) : undefined;
    const planning = !applier && run.policy === "all" && !request.preApprovedBy && (run.approvals ?? "per-call") === "plan";
    try {
      const attempt = new Attempt({
        run,
        log,
        proxy,
        plan,
        copySaved,
        ...(request.preApprovedBy ? { preApprovedBy: request.preApprovedBy } : {}),
        world,
        wire: this.#wire,
        onLateCall: () => this.#published(run.id),
        decisionTtlMs: this.#o.decisionTtlMs ?? DEFAULT_DECISION_TTL_MS,
        now: this.#now,
        onDecisionRequested: (decision) => this.#o.bus.publish({ type: "decision.requested", decision }),
        hostLog,
        planning,
        ...(applier ? { applier } : {}),
      });
      attempt.notes.push(...world.notes);
      const outcome = await this.#o.sandbox.run({
        code: run.program,
        prelude: this.#o.world.executePrelude(world.apis, world.opaque),
        globals: this.#o.world.globals(world.apis),
        limits: { ...this.#o.limits, ...request.limits },
        clock: run.clock,
        seed: run.seed,
        signal: controller.signal,
        onCall: (call) => attempt.onCall(call),
      });
      // From here on a call that ends is recorded as ending after the run (nothing awaits between this and the stored outcome).
      attempt.end(runEnded(outcome, controller.signal));
      if (attempt.forecast && !attempt.stop && !controller.signal.aborted) return this.#askForPlan(log, run, attempt.forecast, outcome, attempt.notes);
      return this.#settle(log, outcome, attempt.stop, attempt.notes, controller.signal);
    } catch (err) {
      return this.#fail(log, [], "Unavailable", reportInternalError(hostLog, `the workbench could not run or save run ${run.id}`, err));
    }
  }

  /**
   * The forecast ran the program to its end: store the plan and ask once for
   * it. The run waits on the plan's first write (recorded as waiting); what the
   * program returned on forecast values is the plan's, not the run's result.
   */
  #askForPlan(log: RunLog, run: CodeRun, forecast: Forecast, outcome: RunOutcome, notes: string[]): Envelope {
    const plan = log.putPlan(forecast.finish({ ...outcome, logs: [...outcome.logs, ...notes] }));
    const decision = askPerson(
      { runId: run.id, source: run.source, log, now: this.#now, decisionTtlMs: this.#o.decisionTtlMs ?? DEFAULT_DECISION_TTL_MS, onDecisionRequested: (d) => this.#o.bus.publish({ type: "decision.requested", decision: d }) },
      forecast.first.described,
      forecast.first.shown,
      undefined,
      plan,
    );
    const pending = decision.kind === "wait" ? decision.decision : this.#o.store.getPendingDecision(run.id)!;
    const logs = [...outcome.logs, ...notes];
    const envelope = log.updateRun({ status: "pending", logs, envelope: buildEnvelope({ runId: run.id, calls: log.calls(), logs, outcome: { pending } }) })!;
    this.#published(run.id);
    return envelope;
  }

  /** Stores how the attempt ended; everything the program produced (result, logs, error text) passes the run's redactor. */
  #settle(log: RunLog, outcome: RunOutcome, stop: AttemptStop | undefined, notes: string[], signal: AbortSignal): Envelope {
    const runId = log.runId;
    const logs = [...outcome.logs, ...notes];
    if (outcome.status === "completed") {
      // A call that asked for a person while the program was returning without awaiting it: nobody will wait for that answer.
      this.#withdrawDecision(log, "the program finished without waiting for this call's decision");
      const envelope = log.updateRun({ status: "completed", failureReason: null, logs, envelope: buildEnvelope({ runId, calls: log.calls(), logs, outcome: { result: outcome.result } }) })!;
      return this.#finished(runId, envelope);
    }
    if (outcome.status === "suspended" && stop?.kind === "pending") {
      const pending = this.#o.store.getPendingDecision(runId);
      if (pending) {
        const envelope = log.updateRun({ status: "pending", logs, envelope: buildEnvelope({ runId, calls: log.calls(), logs, outcome: { pending } }) })!;
        this.#published(runId);
        return envelope;
      }
    }
    if (outcome.status === "suspended" && stop?.kind === "mismatch") return this.#fail(log, logs, "ReplayMismatch", stop.message);
    if (outcome.status === "failed") {
      if (signal.aborted) return this.#fail(log, logs, "Cancelled", String((signal.reason as Error | undefined)?.message ?? "cancelled"));
      // The sandbox's own envelope says where in the program it failed.
      const { reason, name, message } = outcomeToEnvelope(runId, outcome).error!;
      return this.#fail(log, logs, reason, message, name);
    }
    return this.#fail(log, logs, "Unavailable", reportInternalError(this.#o.log ?? (() => {}), `run ${runId} stopped for a reason the workbench did not expect`, new Error(`outcome ${outcome.status}, stop ${JSON.stringify(stop)}`)));
  }

  #fail(log: RunLog, logs: string[], reason: RunFailureReason, message: string, name: string = reason): Envelope {
    this.#withdrawDecision(log, `the run ended (${reason}) before a person decided`);
    const envelope = log.updateRun({
      status: reason === "Cancelled" ? "cancelled" : "failed",
      failureReason: reason,
      logs,
      envelope: buildEnvelope({ runId: log.runId, calls: log.calls(), logs, outcome: { error: { reason, name, message } } }),
    })!;
    return this.#finished(log.runId, envelope);
  }

  /**
   * A decision asked for by an attempt that then ended otherwise (cancelled or
   * timed out while its other calls finished) can no longer continue the run:
   * it is withdrawn, and its call recorded as not sent.
   */
  #withdrawDecision(log: RunLog, why: string): void {
    const pending = this.#o.store.getPendingDecision(log.runId);
    if (!pending || !this.#o.store.deletePendingDecision(log.runId)) return;
    log.finishCall(pending.callIndex, { status: "rejected", error: { name: "CallRejected", message: `${why}; nothing was sent` } });
    this.#o.bus.publish({ type: "decision.made", runId: log.runId, callIndex: pending.callIndex, decision: "cancelled", by: "workbench" });
  }

  #unavailable(message: string): Envelope {
    return { run: "", status: "failed", calls: [], logs: [], error: { reason: "Unavailable", name: "Unavailable", message } };
  }

  #finished(runId: string, envelope: Envelope): Envelope {
    this.#published(runId);
    this.#o.bus.publish({ type: "run.finished", runId, envelope });
    return envelope;
  }

  #published(runId: string): void {
    const summary = this.#o.store.getRunSummary(runId);
    if (summary) this.#o.bus.publish({ type: "run.updated", run: summary });
  }
}
