/**
 * The code-run store: every run (program, clock, seed, status, envelope, logs)
 * and every call it made, plus the allow rules and the decisions waiting for a
 * person. SQLite through node:sqlite, so everything here is synchronous.
 *
 * The store does not redact: callers pass data that is already redacted (the
 * proxy's job), and the store keeps exactly what it is given, except that
 * request and response bodies are capped (`maxBodyBytes`). A call's `result`
 * is never capped: replay hands it back to the program verbatim.
 *
 * Lookups that miss return undefined or false; misuse (recording a call twice
 * or for a run that does not exist) throws, because it is a bug in the caller.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { randomBytes } from "node:crypto";
import type { Envelope, RunFailureReason, RunStatus } from "../../../shared/envelope.ts";
import type {
  AllowRule,
  CallRecord,
  CodeRun,
  FirstAttempt,
  PendingDecision,
  Plan,
  RunApiDefinition,
  RunListFilter,
  RunSummary,
} from "../../../shared/runs.ts";
import { capBody, DEFAULT_MAX_BODY_BYTES } from "./body-cap.ts";
import { apisOfRun, buildListQuery, SUMMARY_BY_ID } from "./list-query.ts";
import { openRunDatabase, type IntegrityCheck, type StoreRecovery } from "./open-database.ts";
import { claimSession, isProcessAlive, ownerIsGone, releaseSession, type RunOwner } from "./run-owner.ts";
import {
  allowRuleFromRow,
  callFromRow,
  callStatusColumns,
  hasOutcome,
  jsonOrNull,
  pendingFromRow,
  runFromRow,
  SENT_STATES,
  summaryFromRow,
  type CallRow,
  type CallState,
  type PendingDecisionRow,
  type RunRow,
  type RunSummaryRow,
} from "./rows.ts";

export interface CodeRunStoreOptions {
  now?: () => Date;
  /** Cap per stored request or response body. Default 256 KiB. */
  maxBodyBytes?: number;
  newRunId?: () => string;
  /** "full" (default) checks every page at open; "fast" only the header, for short-lived CLI commands. */
  integrityCheck?: IntegrityCheck;
  /** Injected for tests; crash recovery asks it whether a run's owner process still exists. */
  isProcessAlive?: (pid: number) => boolean;
}

/** A run's plan as stored, with the person's decision once made. */
export interface StoredPlan {
  plan: Plan;
  status: "waiting" | "approved" | "denied";
  approvedWrites?: number;
  decidedBy?: string;
  decidedAt?: string;
}

/** A run as created: the id is generated unless given, the status is `running` unless given. */
export type NewRun = Pick<CodeRun, "source" | "tool" | "policy" | "program" | "clock" | "seed"> & Partial<Pick<CodeRun, "id" | "parentId" | "status" | "approvals">>;

/** Fields a run may change after creation. `null` clears an optional field. */
export interface RunPatch {
  status?: RunStatus;
  failureReason?: RunFailureReason | null;
  envelope?: Envelope | null;
  logs?: string[];
  /** Set to now when the status becomes final and this is not given. */
  finishedAt?: string | null;
}

/** A call as recorded before it is sent (`in_flight`), or when it stops for a decision (`pending`). */
export type NewCall = Omit<CallRecord, "startedAt" | "finishedAt"> & { startedAt?: string; finishedAt?: string };

export type CallPatch = Partial<
  Pick<
    CallRecord,
    | "status"
    | "completionOrder"
    | "request"
    | "response"
    | "result"
    | "error"
    | "durationMs"
    | "idempotencyKey"
    | "decision"
    | "decidedBy"
    | "decidedAt"
    | "denyMessage"
    | "finishedAt"
    | "requestFingerprint"
    | "firstAttempt"
    | "planWrite"
    | "endedAfterRun"
  >
>;

/** A request from some process that the run's owner cancel it (see `requestCancel`). */
export interface CancelRequest {
  runId: string;
  requestedBy: string;
  requestedAt: string;
}

export interface CrashRecovery {
  /** Runs left `running` by a process that is gone, now `interrupted`. */
  interruptedRuns: string[];
  /** Calls left `in_flight` by a process that is gone, now `unknown`. Nothing is re-sent. */
  unknownCalls: { runId: string; index: number }[];
  /** Runs still `running` because their process is alive (another app, serve or CLI instance). */
  leftToLiveProcesses: string[];
}

const FINAL_RUN_STATUSES: readonly RunStatus[] = ["completed", "failed", "cancelled", "interrupted"];
const OPEN_CALL_STATES: readonly CallState[] = ["in_flight", "pending"];

export class CodeRunStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #now: () => Date;
  readonly #maxBodyBytes: number;
  readonly #newRunId: () => string;
  readonly #isProcessAlive: (pid: number) => boolean;
  readonly #owner: RunOwner;
  readonly #statements = new Map<string, StatementSync>();
  #transactionDepth = 0;
  #closed = false;

  /** Opens (creating, migrating or replacing a corrupt file as needed) `<dataDir>/runs.sqlite`. */
  static open(dataDir: string, opts: CodeRunStoreOptions = {}): { store: CodeRunStore; recovered?: StoreRecovery } {
    const now = opts.now ?? (() => new Date());
    const opened = openRunDatabase(dataDir, now, opts.integrityCheck);
    const store = new CodeRunStore(opened.db, opened.path, { ...opts, now });
    return opened.recovered ? { store, recovered: opened.recovered } : { store };
  }

  private constructor(db: DatabaseSync, path: string, opts: CodeRunStoreOptions & { now: () => Date }) {
    this.#db = db;
    this.path = path;
    this.#now = opts.now;
    this.#maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#newRunId = opts.newRunId ?? (() => `run_${this.#now().getTime().toString(36)}${randomBytes(6).toString("hex")}`);
    this.#isProcessAlive = opts.isProcessAlive ?? isProcessAlive;
    this.#owner = claimSession();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    releaseSession(this.#owner);
    this.#db.close();
  }

  /** Runs `fn` atomically; nests (inner calls become savepoints). */
  transaction<T>(fn: () => T): T {
    const savepoint = `sp${this.#transactionDepth}`;
    this.#db.exec(this.#transactionDepth === 0 ? "BEGIN IMMEDIATE" : `SAVEPOINT ${savepoint}`);
    this.#transactionDepth++;
    try {
      const result = fn();
      this.#transactionDepth--;
      this.#db.exec(this.#transactionDepth === 0 ? "COMMIT" : `RELEASE ${savepoint}`);
      return result;
    } catch (err) {
      this.#transactionDepth--;
      this.#db.exec(this.#transactionDepth === 0 ? "ROLLBACK" : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      throw err;
    }
  }

  // ---- runs ----

  createRun(input: NewRun): CodeRun {
    const id = input.id ?? this.#newRunId();
    const at = this.#stamp();
    this.#run(
      `INSERT INTO runs (id, parent_id, source_kind, source_client, tool, policy, approvals, program, clock, seed, status,
                         created_at, updated_at, owner_host, owner_boot, owner_pid, owner_session)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id, input.parentId ?? null, input.source.kind, input.source.client ?? null, input.tool, input.policy, input.approvals ?? null,
      input.program, input.clock, input.seed, input.status ?? "running", at, at, ...this.#ownerColumns(),
    );
    return this.getRun(id)!;
  }

  /** Applies `patch`; false if there is no such run. The writing process becomes the run's owner. */
  updateRun(id: string, patch: RunPatch): boolean {
    const sets = ["updated_at = ?", "owner_host = ?", "owner_boot = ?", "owner_pid = ?", "owner_session = ?"];
    const values: SQLInputValue[] = [this.#stamp(), ...this.#ownerColumns()];
    const set = (column: string, value: SQLInputValue) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (patch.status !== undefined) set("status", patch.status);
    if (patch.failureReason !== undefined) set("failure_reason", patch.failureReason);
    if (patch.envelope !== undefined) set("envelope_json", jsonOrNull(patch.envelope ?? undefined));
    if (patch.logs !== undefined) set("logs_json", JSON.stringify(patch.logs));
    if (patch.finishedAt !== undefined) set("finished_at", patch.finishedAt);
    else if (patch.status && FINAL_RUN_STATUSES.includes(patch.status)) set("finished_at", this.#stamp());
    return this.#run(`UPDATE runs SET ${sets.join(", ")} WHERE id = ?`, ...values, id).changes > 0;
  }

  getRun(id: string): CodeRun | undefined {
    const row = this.#get<RunRow>(`SELECT *, ${apisOfRun("runs.id")} AS apis_json FROM runs WHERE id = ?`, id);
    return row ? runFromRow(row) : undefined;
  }

  /** The run as a list row (what "run updated" events carry). */
  getRunSummary(id: string): RunSummary | undefined {
    const row = this.#get<RunSummaryRow>(SUMMARY_BY_ID, id);
    return row ? summaryFromRow(row) : undefined;
  }

  /** Newest first. `filter.before` is the last id of the previous page; an unknown id gives an empty page. */
  listRuns(filter: RunListFilter = {}): RunSummary[] {
    let cursor: { createdAt: string; seq: number } | undefined;
    if (filter.before !== undefined) {
      const row = this.#get<{ created_at: string; seq: number }>("SELECT created_at, seq FROM runs WHERE id = ?", filter.before);
      if (!row) return [];
      cursor = { createdAt: row.created_at, seq: row.seq };
    }
    // Not cached: the SQL varies with the filter, and preparing it costs microseconds.
    const query = buildListQuery(filter, cursor);
    return (this.#db.prepare(query.sql).all(...query.params) as unknown as RunSummaryRow[]).map(summaryFromRow);
  }

  // ---- calls ----

  /** Records a call before it is sent; returns it as stored (bodies capped). */
  recordCall(call: NewCall): CallRecord {
    this.insertCall(call);
    return this.getCall(call.runId, call.index)!;
  }

  /** `recordCall` without reading the record back: what the run's hot path uses. */
  insertCall(call: NewCall): void {
    const { state, http_status } = callStatusColumns(call.status);
    const settled = !OPEN_CALL_STATES.includes(state);
    const autoOrder = call.completionOrder === undefined && hasOutcome(state);
    // Claimed first: should the process die between the two, the run is ours to recover, which is right.
    this.#claimRun(call.runId);
    this.#run(
      `INSERT INTO calls (run_id, idx, completion_order, api, operation, operation_id, arguments_json, arguments_hash,
                          request_json, state, http_status, response_json, result_json, error_json, duration_ms,
                          idempotency_key, decision, decided_by, decided_at, deny_message, started_at, finished_at, replayed_from,
                          request_fingerprint, first_attempt_json, ended_after_run, plan_write)
       VALUES (?, ?, ${autoOrder ? NEXT_COMPLETION_ORDER : "?"}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      call.runId, call.index, autoOrder ? call.runId : (call.completionOrder ?? null),
      call.api, call.operation, call.operationId ?? null, JSON.stringify(call.arguments), call.argumentsHash,
      jsonOrNull(call.request && capBody(call.request, this.#maxBodyBytes)), state, http_status,
      jsonOrNull(call.response && capBody(call.response, this.#maxBodyBytes)), jsonOrNull(call.result), jsonOrNull(call.error),
      call.durationMs ?? null, call.idempotencyKey ?? null, call.decision ?? null, call.decidedBy ?? null,
      call.decidedAt ?? null, call.denyMessage ?? null, call.startedAt ?? this.#stamp(),
      call.finishedAt ?? (settled ? this.#stamp() : null), call.replayedFrom ?? null,
      call.requestFingerprint ?? null, jsonOrNull(call.firstAttempt && capFirstAttempt(call.firstAttempt, this.#maxBodyBytes)),
      call.endedAfterRun ? 1 : null, call.planWrite ?? null,
    );
  }

  /**
   * Updates a call after it was answered, failed, decided or denied. When its
   * status leaves `in_flight`/`pending` it gets a finish time and, when it has
   * an outcome (not `unknown`), the next completion order of its run (unless
   * given): replay hands saved results back in that order. Returns the call
   * as stored, or undefined if there is none.
   */
  finishCall(runId: string, index: number, patch: CallPatch): CallRecord | undefined {
    return this.updateCall(runId, index, patch) ? this.getCall(runId, index) : undefined;
  }

  /** `finishCall` without reading the record back; false if there is no such call. */
  updateCall(runId: string, index: number, patch: CallPatch): boolean {
    const before = this.#get<Pick<CallRow, "state" | "completion_order">>("SELECT state, completion_order FROM calls WHERE run_id = ? AND idx = ?", runId, index);
    if (!before) return false;
    const sets: string[] = [];
    const values: SQLInputValue[] = [];
    const set = (column: string, value: SQLInputValue) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (patch.status !== undefined) {
      const { state, http_status } = callStatusColumns(patch.status);
      set("state", state);
      set("http_status", http_status);
      const settles = OPEN_CALL_STATES.includes(before.state) && !OPEN_CALL_STATES.includes(state);
      if (settles && hasOutcome(state) && patch.completionOrder === undefined && before.completion_order === null) {
        sets.push(`completion_order = ${NEXT_COMPLETION_ORDER}`);
        values.push(runId);
      }
      if (settles && patch.finishedAt === undefined) set("finished_at", this.#stamp());
    }
    if (patch.completionOrder !== undefined) set("completion_order", patch.completionOrder);
    if (patch.request !== undefined) set("request_json", JSON.stringify(capBody(patch.request, this.#maxBodyBytes)));
    if (patch.response !== undefined) set("response_json", JSON.stringify(capBody(patch.response, this.#maxBodyBytes)));
    if (patch.result !== undefined) set("result_json", JSON.stringify(patch.result));
    if (patch.error !== undefined) set("error_json", JSON.stringify(patch.error));
    if (patch.durationMs !== undefined) set("duration_ms", patch.durationMs);
    if (patch.idempotencyKey !== undefined) set("idempotency_key", patch.idempotencyKey);
    if (patch.decision !== undefined) set("decision", patch.decision);
    if (patch.decidedBy !== undefined) set("decided_by", patch.decidedBy);
    if (patch.decidedAt !== undefined) set("decided_at", patch.decidedAt);
    if (patch.denyMessage !== undefined) set("deny_message", patch.denyMessage);
    if (patch.finishedAt !== undefined) set("finished_at", patch.finishedAt);
    if (patch.requestFingerprint !== undefined) set("request_fingerprint", patch.requestFingerprint);
    if (patch.firstAttempt !== undefined) set("first_attempt_json", JSON.stringify(capFirstAttempt(patch.firstAttempt, this.#maxBodyBytes)));
    if (patch.planWrite !== undefined) set("plan_write", patch.planWrite);
    if (patch.endedAfterRun !== undefined) set("ended_after_run", patch.endedAfterRun ? 1 : null);
    if (sets.length > 0) this.#run(`UPDATE calls SET ${sets.join(", ")} WHERE run_id = ? AND idx = ?`, ...values, runId, index);
    return true;
  }

  getCall(runId: string, index: number): CallRecord | undefined {
    const row = this.#get<CallRow>("SELECT * FROM calls WHERE run_id = ? AND idx = ?", runId, index);
    return row ? callFromRow(row) : undefined;
  }

  /** In the order the program started them. */
  getCalls(runId: string): CallRecord[] {
    return this.#all<CallRow>("SELECT * FROM calls WHERE run_id = ? ORDER BY idx", runId).map(callFromRow);
  }

  /**
   * Discards the calls of a run from `fromIndex` on that never left the
   * machine (pending, denied, rejected), so a replay can record its own
   * attempt at those indexes. Calls that may have reached the upstream
   * (answered, in flight, unknown, failed) are kept whatever the index: they
   * are the record of a side effect, and replay must match them, not forget them.
   */
  deleteCallsFrom(runId: string, fromIndex: number): { deleted: number[]; keptSent: number[] } {
    return this.transaction(() => {
      const sent = SENT_STATES.map(() => "?").join(", ");
      const deleted = this.#all<{ idx: number }>(
        `DELETE FROM calls WHERE run_id = ? AND idx >= ? AND state NOT IN (${sent}) RETURNING idx`,
        runId, fromIndex, ...SENT_STATES,
      ).map((r) => r.idx);
      const keptSent = this.#all<{ idx: number }>(
        "SELECT idx FROM calls WHERE run_id = ? AND idx >= ? ORDER BY idx", runId, fromIndex,
      ).map((r) => r.idx);
      return { deleted: deleted.sort((a, b) => a - b), keptSent };
    });
  }

  /** Deletes one call that never left the machine (pending, denied, rejected); false if there is none such. */
  deleteUnsentCall(runId: string, index: number): boolean {
    const sent = SENT_STATES.map(() => "?").join(", ");
    return this.#run(`DELETE FROM calls WHERE run_id = ? AND idx = ? AND state NOT IN (${sent})`, runId, index, ...SENT_STATES).changes > 0;
  }

  /**
   * Run once at start. Runs left `running` become `interrupted` and calls left
   * `in_flight` become `unknown`, but only where the process that was running
   * them is gone (see run-owner.ts). Nothing is re-sent, here or later, without a person.
   */
  recoverAfterCrash(): CrashRecovery {
    type OwnerRow = { id: string; status: RunStatus; owner_host: string | null; owner_boot: number | null; owner_pid: number | null; owner_session: string | null };
    const candidates = this.#all<OwnerRow>(
      `SELECT id, status, owner_host, owner_boot, owner_pid, owner_session FROM runs
       WHERE status = 'running' OR id IN (SELECT run_id FROM calls WHERE state = 'in_flight')`,
    );
    const result: CrashRecovery = { interruptedRuns: [], unknownCalls: [], leftToLiveProcesses: [] };
    this.transaction(() => {
      for (const run of candidates) {
        const owner = { host: run.owner_host ?? undefined, boot: run.owner_boot ?? undefined, pid: run.owner_pid ?? undefined, session: run.owner_session ?? undefined };
        if (!ownerIsGone(owner, this.#owner, this.#isProcessAlive)) {
          result.leftToLiveProcesses.push(run.id);
          continue;
        }
        if (run.status === "running") {
          this.#run("UPDATE runs SET status = 'interrupted', updated_at = ? WHERE id = ?", this.#stamp(), run.id);
          this.#run("DELETE FROM cancel_requests WHERE run_id = ?", run.id);
          // A decision asked for just before the process died: the run cannot continue from it (its other calls are unknown).
          this.#run("DELETE FROM pending_decisions WHERE run_id = ?", run.id);
          result.interruptedRuns.push(run.id);
        }
        const calls = this.#all<{ idx: number }>("UPDATE calls SET state = 'unknown' WHERE run_id = ? AND state = 'in_flight' RETURNING idx", run.id);
        for (const call of calls.sort((a, b) => a.idx - b.idx)) result.unknownCalls.push({ runId: run.id, index: call.idx });
      }
    });
    return result;
  }

  // ---- allow rules ----

  /** Idempotent: an existing rule is returned unchanged. */
  addAllowRule(rule: { api: string; operationId: string; createdBy: string }): AllowRule {
    this.#run(
      "INSERT INTO allow_rules (api, operation_id, created_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
      rule.api, rule.operationId, rule.createdBy, this.#stamp(),
    );
    return allowRuleFromRow(this.#get("SELECT * FROM allow_rules WHERE api = ? AND operation_id = ?", rule.api, rule.operationId)!);
  }

  listAllowRules(): AllowRule[] {
    return this.#all<Parameters<typeof allowRuleFromRow>[0]>("SELECT * FROM allow_rules ORDER BY api, operation_id").map(allowRuleFromRow);
  }

  removeAllowRule(api: string, operationId: string): boolean {
    return this.#run("DELETE FROM allow_rules WHERE api = ? AND operation_id = ?", api, operationId).changes > 0;
  }

  isAllowed(api: string, operationId: string): boolean {
    return this.#get("SELECT 1 AS yes FROM allow_rules WHERE api = ? AND operation_id = ?", api, operationId) !== undefined;
  }

  // ---- pending decisions ----

  /** One per run (a run stops at its first waiting call); putting again replaces it. The call must be recorded first. */
  putPendingDecision(decision: PendingDecision): void {
    this.#run(
      `INSERT OR REPLACE INTO pending_decisions (run_id, call_index, api, operation, operation_id, request_json, arguments_json,
                                                 arguments_hash, requested_by_kind, requested_by_client, requested_at, expires_at, changes_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      decision.runId, decision.callIndex, decision.api, decision.operation, decision.operationId ?? null,
      JSON.stringify(capBody(decision.request, this.#maxBodyBytes)), JSON.stringify(decision.arguments), decision.argumentsHash,
      decision.requestedBy.kind, decision.requestedBy.client ?? null, decision.requestedAt, decision.expiresAt ?? null,
      jsonOrNull(decision.changes),
    );
  }

  /** The waiting decision; a run waiting on a plan carries it (`plan`). */
  getPendingDecision(runId: string): PendingDecision | undefined {
    const row = this.#get<PendingDecisionRow>("SELECT * FROM pending_decisions WHERE run_id = ?", runId);
    return row ? this.#withPlan(pendingFromRow(row)) : undefined;
  }

  /** Oldest request first. */
  listPendingDecisions(): PendingDecision[] {
    return this.#all<PendingDecisionRow>("SELECT * FROM pending_decisions ORDER BY requested_at, run_id").map((row) => this.#withPlan(pendingFromRow(row)));
  }

  #withPlan(decision: PendingDecision): PendingDecision {
    const plan = this.getPlan(decision.runId);
    return plan?.status === "waiting" ? { ...decision, plan: plan.plan } : decision;
  }

  // ---- plans ----

  /** Stores the run's plan, waiting for a person (replacing an earlier one). */
  putPlan(runId: string, plan: Plan): void {
    this.#run(
      `INSERT OR REPLACE INTO run_plans (run_id, plan_json, status, approved_writes, decided_by, decided_at, created_at) VALUES (?, ?, 'waiting', NULL, NULL, NULL, ?)`,
      runId, JSON.stringify(plan), this.#stamp(),
    );
  }

  getPlan(runId: string): StoredPlan | undefined {
    const row = this.#get<{ plan_json: string; status: StoredPlan["status"]; approved_writes: number | null; decided_by: string | null; decided_at: string | null }>(
      "SELECT plan_json, status, approved_writes, decided_by, decided_at FROM run_plans WHERE run_id = ?", runId,
    );
    if (!row) return undefined;
    const stored: StoredPlan = { plan: JSON.parse(row.plan_json) as Plan, status: row.status };
    if (row.approved_writes !== null) stored.approvedWrites = row.approved_writes;
    if (row.decided_by !== null) stored.decidedBy = row.decided_by;
    if (row.decided_at !== null) stored.decidedAt = row.decided_at;
    return stored;
  }

  /** Records a person's decision on a waiting plan; false if the run has none waiting. */
  decidePlan(runId: string, decision: { approvedWrites: number; by: string; at: string } | { denied: true; by: string; at: string }): boolean {
    const approved = "approvedWrites" in decision;
    return this.#run(
      "UPDATE run_plans SET status = ?, approved_writes = ?, decided_by = ?, decided_at = ? WHERE run_id = ? AND status = 'waiting'",
      approved ? "approved" : "denied", approved ? decision.approvedWrites : null, decision.by, decision.at, runId,
    ).changes > 0;
  }

  deletePendingDecision(runId: string): boolean {
    return this.#run("DELETE FROM pending_decisions WHERE run_id = ?", runId).changes > 0;
  }

  // ---- cancel requests from other processes ----

  /**
   * Asks the process running `runId` to cancel it: true when the run is
   * `running` (the request is then stored for its owner, which polls for it),
   * false otherwise. A later request replaces an earlier one.
   */
  requestCancel(runId: string, by: string): boolean {
    return this.#run(
      `INSERT OR REPLACE INTO cancel_requests (run_id, requested_by, requested_at)
       SELECT id, ?, ? FROM runs WHERE id = ? AND status = 'running'`,
      by, this.#stamp(), runId,
    ).changes > 0;
  }

  /** Takes (reads and deletes) the cancel requests for these runs: the caller owns them and acts on each. */
  takeCancelRequests(runIds: readonly string[]): CancelRequest[] {
    if (runIds.length === 0) return [];
    // A read first: the owner polls often, and a write each time would contend for the store's lock for nothing.
    const rows = this.#db
      .prepare(`SELECT run_id, requested_by, requested_at FROM cancel_requests WHERE run_id IN (${runIds.map(() => "?").join(", ")})`)
      .all(...runIds) as { run_id: string; requested_by: string; requested_at: string }[];
    return rows.filter((r) => this.deleteCancelRequest(r.run_id)).map((r) => ({ runId: r.run_id, requestedBy: r.requested_by, requestedAt: r.requested_at }));
  }

  /** The request still waiting for the owner of `runId`, if any. */
  getCancelRequest(runId: string): CancelRequest | undefined {
    const row = this.#get<{ run_id: string; requested_by: string; requested_at: string }>("SELECT * FROM cancel_requests WHERE run_id = ?", runId);
    return row ? { runId: row.run_id, requestedBy: row.requested_by, requestedAt: row.requested_at } : undefined;
  }

  /** The pid of the process that last wrote the run (its owner, while it runs). */
  runOwnerPid(runId: string): number | undefined {
    return this.#get<{ owner_pid: number | null }>("SELECT owner_pid FROM runs WHERE id = ?", runId)?.owner_pid ?? undefined;
  }

  deleteCancelRequest(runId: string): boolean {
    return this.#run("DELETE FROM cancel_requests WHERE run_id = ?", runId).changes > 0;
  }

  // ---- the APIs a run used ----

  /** Keeps (or replaces) the definition of an API as the run used it last. */
  recordRunApi(runId: string, definition: RunApiDefinition): void {
    this.#run(
      "INSERT OR REPLACE INTO run_apis (run_id, name, definition_json, recorded_at) VALUES (?, ?, ?, ?)",
      runId, definition.name, JSON.stringify(definition), this.#stamp(),
    );
  }

  /** The APIs a run used, by name. */
  getRunApis(runId: string): RunApiDefinition[] {
    return this.#all<{ definition_json: string }>("SELECT definition_json FROM run_apis WHERE run_id = ? ORDER BY name", runId).map((r) => JSON.parse(r.definition_json) as RunApiDefinition);
  }

  // ---- internals ----

  #stamp(): string {
    return this.#now().toISOString();
  }

  #ownerColumns(): SQLInputValue[] {
    return [this.#owner.host, this.#owner.boot, this.#owner.pid, this.#owner.session];
  }

  /** Makes this process the run's owner; a no-op write when it already is (the usual case). */
  #claimRun(runId: string): void {
    this.#run(
      "UPDATE runs SET owner_host = ?, owner_boot = ?, owner_pid = ?, owner_session = ? WHERE id = ? AND owner_session IS NOT ?",
      ...this.#ownerColumns(), runId, this.#owner.session,
    );
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #run(sql: string, ...params: SQLInputValue[]) {
    return this.#statement(sql).run(...params);
  }

  #get<T>(sql: string, ...params: SQLInputValue[]): T | undefined {
    return this.#statement(sql).get(...params) as T | undefined;
  }

  #all<T>(sql: string, ...params: SQLInputValue[]): T[] {
    return this.#statement(sql).all(...params) as T[];
  }
}

/** The next completion order within a run: one more than the highest so far. */
function capFirstAttempt(attempt: FirstAttempt, maxBodyBytes: number): FirstAttempt {
  return { ...attempt, request: capBody(attempt.request, maxBodyBytes), response: capBody(attempt.response, maxBodyBytes) };
}

const NEXT_COMPLETION_ORDER = "(SELECT coalesce(max(completion_order), -1) + 1 FROM calls WHERE run_id = ?)";

export { describeRecovery, type StoreRecovery } from "./open-database.ts";
