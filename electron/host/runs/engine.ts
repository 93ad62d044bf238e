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
import type { ProxyDeps } from "../proxy/pipeline.ts";
import { outcomeToEnvelope } from "../sandbox/envelope.ts";
import type { RunLimits, RunOutcome, RunRequest } from "../sandbox/types.ts";
import type { Redactor } from "../vault/redact.ts";
import { Attempt, type AttemptStop } from "./attempt.ts";
import { buildEnvelope } from "./envelope.ts";
import { askPerson } from "../proxy/pipeline.ts";
import type { Forecast } from "./forecast.ts";
import { PlanApplier } from "./plan-apply.ts";
import { deniedMessage, ReplayPlan } from "./replay.ts";
import { RunLog } from "./run-log.ts";
import type { CodeRunStore } from "./store.ts";

export interface SandboxRunner {
  run(request: RunRequest): Promise<RunOutcome>;
}

/** What the engine needs to build a program's world: the `apis` prelude, globals, a redactor. */
export interface ProgramWorld {
  executePrelude(): string;
  globals(): Record<string, JsonValue>;
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

export class RunEngine {
  readonly #o: RunEngineOptions;
  readonly #now: () => number;
  readonly #running = new Map<string, AbortController>();
  #expiryTimer: NodeJS.Timeout | undefined;

  constructor(options: RunEngineOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
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
    const saved = parent && !request.fresh ? this.#o.store.getCalls(parent.id) : [];
    return this.#attempt(run, new ReplayPlan(saved), saved.length > 0, request);
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
    // Deleting the pending row is the lock: only one decider wins, across processes.
    if (!store.deletePendingDecision(runId)) return { ok: false, message: `run ${runId} was decided by someone else just now` };
    const at = new Date(this.#now()).toISOString();
    const log = this.#runLog(runId);
    // A plan: the decision covers its writes (all, or the first N); the waiting call is one of them.
    let planWrite: number | undefined;
    if (pending.plan) {
      const total = pending.plan.writes.length;
      if (request.decision === "deny") store.decidePlan(runId, { denied: true, by: request.by, at });
      else store.decidePlan(runId, { approvedWrites: Math.max(1, Math.min(request.writes ?? total, total)), by: request.by, at });
      planWrite = pending.plan.writes.find((w) => w.index === pending.callIndex)?.write;
    }
    if (request.decision === "deny") {
      log.finishCall(pending.callIndex, { status: "denied", decision: "denied", decidedBy: request.by, decidedAt: at, ...(request.message ? { denyMessage: request.message } : {}), error: { name: "CallDenied", message: deniedMessage(request.message) } });
    } else {
      log.finishCall(pending.callIndex, { decision: "approved", decidedBy: request.by, decidedAt: at, ...(planWrite !== undefined ? { planWrite } : {}) });
      if (request.decision === "always" && pending.operationId) store.addAllowRule({ api: pending.api, operationId: pending.operationId, createdBy: request.by });
    }
    this.#o.bus.publish({ type: "decision.made", runId, callIndex: pending.callIndex, decision: request.decision === "deny" ? "denied" : "approved", by: request.by });
    const run = store.getRun(runId)!;
    log.updateRun({ status: "running" });
    this.#published(runId);
    const continuation = this.#attempt(run, new ReplayPlan(store.getCalls(runId)), false, { code: run.program, policy: run.policy, source: run.source, ...(run.approvals ? { approvals: run.approvals } : {}) });
    return { ok: true, decision: pending, continuation };
  }

  /** Stops a run: a running one at once, a pending one by withdrawing its decision. */
  cancel(runId: string, by: string): { ok: boolean; message: string } {
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
    const run = this.#o.store.getRun(runId);
    return { ok: false, message: run ? `run ${runId} is ${run.status}; only running or pending runs can be cancelled` : `no run ${runId}` };
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

  stop(): void {
    if (this.#expiryTimer) clearInterval(this.#expiryTimer);
    this.#expiryTimer = undefined;
    for (const controller of this.#running.values()) controller.abort(new Error("the workbench is shutting down"));
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

  async #attempt(run: CodeRun, plan: ReplayPlan, copySaved: boolean, request: Pick<ExecuteRequest, "code" | "policy" | "source" | "preApprovedBy" | "limits" | "approvals">): Promise<Envelope> {
    const controller = new AbortController();
    this.#running.set(run.id, controller);
    const hostLog = this.#o.log ?? (() => {});
    // One RunLog for the whole attempt: its redactor learns the credentials the calls use, and the outcome is redacted with them.
    const log = this.#runLog(run.id);
    // An approved plan is applied; otherwise, writes are planned unless they are approved up front or one by one.
    const stored = this.#o.store.getPlan(run.id);
    const applier = stored?.status === "approved" ? new PlanApplier(stored, this.#o.proxy, log.redactor, run.policy) : undefined;
    const planning = !applier && run.policy === "all" && !request.preApprovedBy && (run.approvals ?? "per-call") === "plan";
    try {
      const attempt = new Attempt({
        run,
        log,
        proxy: this.#o.proxy,
        plan,
        copySaved,
        ...(request.preApprovedBy ? { preApprovedBy: request.preApprovedBy } : {}),
        signal: controller.signal,
        decisionTtlMs: this.#o.decisionTtlMs ?? DEFAULT_DECISION_TTL_MS,
        now: this.#now,
        onDecisionRequested: (decision) => this.#o.bus.publish({ type: "decision.requested", decision }),
        hostLog,
        planning,
        ...(applier ? { applier } : {}),
      });
      const outcome = await this.#o.sandbox.run({
        code: run.program,
        prelude: this.#o.world.executePrelude(),
        globals: this.#o.world.globals(),
        limits: { ...this.#o.limits, ...request.limits },
        clock: run.clock,
        seed: run.seed,
        signal: controller.signal,
        onCall: (call) => attempt.onCall(call),
      });
      if (attempt.forecast && !attempt.stop && !controller.signal.aborted) return this.#askForPlan(log, run, attempt.forecast, outcome, attempt.notes);
      return this.#settle(log, outcome, attempt.stop, attempt.notes, controller.signal);
    } catch (err) {
      return this.#fail(log, [], "Unavailable", reportInternalError(hostLog, `the workbench could not run or save run ${run.id}`, err));
    } finally {
      this.#running.delete(run.id);
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
    const envelope = log.updateRun({
      status: reason === "Cancelled" ? "cancelled" : "failed",
      failureReason: reason,
      logs,
      envelope: buildEnvelope({ runId: log.runId, calls: log.calls(), logs, outcome: { error: { reason, name, message } } }),
    })!;
    return this.#finished(log.runId, envelope);
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
