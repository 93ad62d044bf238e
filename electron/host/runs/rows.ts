/**
 * Rows of the run store ↔ the shared record shapes (shared/runs.ts). The one
 * place that knows column names, JSON columns and how a CallStatus (an HTTP
 * number or a word) is split into `state` + `http_status`.
 */
import type { JsonValue } from "../../../shared/json.ts";
import type { CallStatus, Decision, Envelope, RunFailureReason, RunStatus } from "../../../shared/envelope.ts";
import type {
  AllowRule,
  ApprovalMode,
  CallRecord,
  CodeRun,
  FirstAttempt,
  PendingDecision,
  RecordedRequest,
  RecordedResponse,
  RunPolicy,
  RunSource,
  RunSummary,
  RunTool,
} from "../../../shared/runs.ts";

type Text = string | null;

export interface RunRow {
  id: string;
  parent_id: Text;
  source_kind: RunSource["kind"];
  source_client: Text;
  tool: RunTool;
  policy: RunPolicy;
  approvals: ApprovalMode | null;
  program: string;
  clock: number;
  seed: number;
  status: RunStatus;
  failure_reason: Text;
  envelope_json: Text;
  logs_json: string;
  created_at: string;
  updated_at: string;
  finished_at: Text;
  apis_json: string;
}

export interface RunSummaryRow extends Omit<RunRow, "program" | "clock" | "seed" | "envelope_json" | "logs_json" | "finished_at"> {
  program_head: string;
  call_count: number;
}

export interface CallRow {
  run_id: string;
  idx: number;
  completion_order: number | null;
  api: string;
  operation: string;
  operation_id: Text;
  arguments_json: string;
  arguments_hash: string;
  request_json: Text;
  state: CallState;
  http_status: number | null;
  response_json: Text;
  result_json: Text;
  error_json: Text;
  duration_ms: number | null;
  idempotency_key: Text;
  decision: Text;
  decided_by: Text;
  decided_at: Text;
  deny_message: Text;
  started_at: string;
  finished_at: Text;
  replayed_from: Text;
  request_fingerprint: Text;
  first_attempt_json: Text;
  plan_write: number | null;
  ended_after_run: 1 | null;
}

export interface PendingDecisionRow {
  run_id: string;
  call_index: number;
  api: string;
  operation: string;
  operation_id: Text;
  request_json: string;
  arguments_json: string;
  arguments_hash: string;
  requested_by_kind: RunSource["kind"];
  requested_by_client: Text;
  requested_at: string;
  expires_at: Text;
  changes_json: Text;
}

export type CallState = "answered" | Exclude<CallStatus, number>;

/** States in which the request may have reached the upstream: such calls are never deleted, never re-sent. */
export const SENT_STATES: readonly CallState[] = ["answered", "in_flight", "unknown", "failed"];

/**
 * States with an outcome the program received (or would receive on replay):
 * only these get a completion order. `unknown` has none: replay must never
 * hand back an answer that nobody saw.
 */
export function hasOutcome(state: CallState): boolean {
  return state !== "in_flight" && state !== "pending" && state !== "unknown";
}

export function callStatusColumns(status: CallStatus): { state: CallState; http_status: number | null } {
  return typeof status === "number" ? { state: "answered", http_status: status } : { state: status, http_status: null };
}

export function runFromRow(row: RunRow): CodeRun {
  return withoutUndefined({
    id: row.id,
    parentId: opt(row.parent_id),
    source: sourceOf(row.source_kind, row.source_client),
    tool: row.tool,
    policy: row.policy,
    approvals: opt(row.approvals),
    program: row.program,
    clock: row.clock,
    seed: row.seed,
    status: row.status,
    failureReason: opt(row.failure_reason) as RunFailureReason | undefined,
    envelope: parseOpt<Envelope>(row.envelope_json),
    logs: JSON.parse(row.logs_json) as string[],
    apis: JSON.parse(row.apis_json) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: opt(row.finished_at),
  });
}

export function summaryFromRow(row: RunSummaryRow): RunSummary {
  return withoutUndefined({
    id: row.id,
    parentId: opt(row.parent_id),
    source: sourceOf(row.source_kind, row.source_client),
    tool: row.tool,
    policy: row.policy,
    status: row.status,
    failureReason: opt(row.failure_reason) as RunFailureReason | undefined,
    apis: JSON.parse(row.apis_json) as string[],
    callCount: row.call_count,
    title: titleOf(row.program_head),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

export function callFromRow(row: CallRow): CallRecord {
  return withoutUndefined({
    runId: row.run_id,
    index: row.idx,
    completionOrder: opt(row.completion_order),
    api: row.api,
    operation: row.operation,
    operationId: opt(row.operation_id),
    arguments: JSON.parse(row.arguments_json) as JsonValue,
    argumentsHash: row.arguments_hash,
    request: parseOpt<RecordedRequest>(row.request_json),
    status: row.state === "answered" ? row.http_status! : row.state,
    response: parseOpt<RecordedResponse>(row.response_json),
    result: parseOpt<JsonValue>(row.result_json),
    error: parseOpt<{ name: string; message: string; details?: JsonValue }>(row.error_json),
    durationMs: opt(row.duration_ms),
    idempotencyKey: opt(row.idempotency_key),
    decision: opt(row.decision) as Decision | undefined,
    decidedBy: opt(row.decided_by),
    decidedAt: opt(row.decided_at),
    denyMessage: opt(row.deny_message),
    startedAt: row.started_at,
    finishedAt: opt(row.finished_at),
    replayedFrom: opt(row.replayed_from),
    requestFingerprint: opt(row.request_fingerprint),
    firstAttempt: parseOpt<FirstAttempt>(row.first_attempt_json),
    planWrite: opt(row.plan_write),
    endedAfterRun: row.ended_after_run === 1 ? true : undefined,
  });
}

export function pendingFromRow(row: PendingDecisionRow): PendingDecision {
  return withoutUndefined({
    runId: row.run_id,
    callIndex: row.call_index,
    api: row.api,
    operation: row.operation,
    operationId: opt(row.operation_id),
    request: JSON.parse(row.request_json) as RecordedRequest,
    arguments: JSON.parse(row.arguments_json) as JsonValue,
    argumentsHash: row.arguments_hash,
    requestedBy: sourceOf(row.requested_by_kind, row.requested_by_client),
    requestedAt: row.requested_at,
    expiresAt: opt(row.expires_at),
    changes: parseOpt<string[]>(row.changes_json),
  });
}

export function allowRuleFromRow(row: { api: string; operation_id: string; created_by: string; created_at: string }): AllowRule {
  return { api: row.api, operationId: row.operation_id, createdBy: row.created_by, createdAt: row.created_at };
}

/** JSON for a column, or NULL for an absent value. */
export function jsonOrNull(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** The first informative line of a program: skips blank lines and a bare `async () => {` opener. */
export function titleOf(programHead: string): string {
  const lines = programHead.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
  const informative = lines.find((l) => !/^(async\s*)?(\(\s*\)|\w+)\s*=>\s*\{?$/.test(l)) ?? lines[0] ?? "";
  return informative.length > TITLE_MAX ? `${informative.slice(0, TITLE_MAX - 1)}…` : informative;
}

const TITLE_MAX = 120;

function sourceOf(kind: RunSource["kind"], client: Text): RunSource {
  return client === null ? { kind } : { kind, client };
}

function opt<T>(value: T | null): T | undefined {
  return value === null ? undefined : value;
}

function parseOpt<T>(json: Text): T | undefined {
  return json === null ? undefined : (JSON.parse(json) as T);
}

/** Optional fields are absent rather than `undefined`, so records compare and serialise cleanly. */
function withoutUndefined<T extends object>(record: T): T {
  for (const key of Object.keys(record) as (keyof T)[]) if (record[key] === undefined) delete record[key];
  return record;
}
