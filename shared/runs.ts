/**
 * Code runs as the store keeps them and the UI, the CLI and MCP read them.
 * Everything here is already redacted: no secret value ever reaches this shape.
 */
import type { ApiConfig } from "./api-config.ts";
import type { JsonValue } from "./json.ts";
import type { CallStatus, Decision, Envelope, RunFailureReason, RunStatus } from "./envelope.ts";

export type RunTool = "search" | "execute";
export type RunPolicy = "read_only" | "all";
/** How a run's writes are approved: all at once from a forecast (`plan`), or each as the program reaches it. */
export type ApprovalMode = "plan" | "per-call";

/** Who started a run: a person in the UI or CLI, or an MCP client by name and version. */
export interface RunSource {
  kind: "cli" | "ui" | "mcp";
  /** MCP client name and version from `initialize`, e.g. "claude-code 2.1.0". */
  client?: string;
}

export interface CodeRun {
  id: string;
  /** The run this one was edited or replayed from. */
  parentId?: string;
  source: RunSource;
  tool: RunTool;
  policy: RunPolicy;
  /** How writes are approved (runs from before plans existed: per-call). */
  approvals?: ApprovalMode;
  program: string;
  clock: number;
  seed: number;
  status: RunStatus;
  failureReason?: RunFailureReason;
  /** The envelope as last returned (result, error or pending), redacted. */
  envelope?: Envelope;
  logs: string[];
  /** APIs the program called, for filtering. */
  apis: string[];
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
}

/** The request as sent (or as it would be sent), secrets redacted, vault references unexpanded. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  bodyEncoding?: "utf8" | "base64";
  /** True when the stored body was capped. */
  truncated?: boolean;
  /** Size in bytes of the whole body, before the store capped it. */
  bodyBytes?: number;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
  bodyEncoding?: "utf8" | "base64";
  /** True when the stored body was capped. */
  truncated?: boolean;
  /** Size in bytes of the whole body, before the store capped it. */
  bodyBytes?: number;
}

export interface CallRecord {
  runId: string;
  /** Order in which the program started the call (0-based). */
  index: number;
  /** Order in which the call completed, for deterministic replay of races. */
  completionOrder?: number;
  api: string;
  /** `METHOD /path/template`. */
  operation: string;
  operationId?: string;
  /** The arguments as the program passed them (redacted, references unexpanded). */
  arguments: JsonValue;
  /** sha256 of the canonical arguments; replay compares it. */
  argumentsHash: string;
  request?: RecordedRequest;
  status: CallStatus;
  response?: RecordedResponse;
  /** What the program received (the `{status, headers, body}` or the error), for replay. */
  result?: JsonValue;
  error?: { name: string; message: string; details?: JsonValue };
  durationMs?: number;
  idempotencyKey?: string;
  decision?: Decision;
  decidedBy?: string;
  decidedAt?: string;
  denyMessage?: string;
  startedAt: string;
  finishedAt?: string;
  /** Set when the program got this call's saved result from that (parent) run instead of the network. */
  replayedFrom?: string;
  /**
   * sha256 of the request as a person saw it when asked (method, URL, headers
   * with references and the credential by reference, body): what an approval
   * binds to. At send time the request is rebuilt; any difference asks again.
   */
  requestFingerprint?: string;
  /** The first exchange of a call that got 401 and was retried once with a refreshed credential. */
  firstAttempt?: FirstAttempt;
  /** Set when this call was sent as write N of an approved plan. */
  planWrite?: number;
  /**
   * The call ended (answered, or failed) after its run had ended: the program
   * never saw this outcome, but the upstream did get the request.
   */
  endedAfterRun?: true;
}

/**
 * An API as a run used it: what any process needs to continue the run (the
 * spec, by the hash the artifacts cache keeps it under, and the settings that
 * shape a request), and what it compares to say that the API changed since.
 */
export interface RunApiDefinition {
  name: string;
  /** sha256 of the spec's text: `<dataDir>/artifacts/<specHash>.json`. */
  specHash: string;
  /** Given on the command line (`--spec`) for one command: no vault access and no allow rules, wherever the run continues. */
  oneOff: boolean;
  /** The effective base URL when the run used it. */
  baseUrl: string;
  /** The stable name approvals bind to when the base URL is only known at runtime (the demo API). */
  boundBaseUrl?: string;
  /** Base URL, auth scheme and credential reference, header settings, validation mode, timeouts, size limit, context values. */
  config: ApiConfig;
}

/** One request the upstream received and answered, before the call's final exchange. */
export interface FirstAttempt {
  reason: "retried_after_401";
  request: RecordedRequest;
  response: RecordedResponse;
  durationMs: number;
}

export interface RunListFilter {
  status?: RunStatus[];
  source?: RunSource["kind"];
  api?: string;
  /** Free text over program, logs and operation names. */
  text?: string;
  limit?: number;
  /** Keyset pagination: runs created before this run id's creation. */
  before?: string;
}

export interface RunSummary {
  id: string;
  parentId?: string;
  source: RunSource;
  tool: RunTool;
  policy: RunPolicy;
  status: RunStatus;
  failureReason?: RunFailureReason;
  apis: string[];
  callCount: number;
  /** First line of the program, for lists. */
  title: string;
  createdAt: string;
  updatedAt: string;
}

/** "Approve and always allow": later calls to this operation of this API pass without asking. */
export interface AllowRule {
  api: string;
  /** The operation id, or `METHOD /path/template` for an operation that has none. */
  operationId: string;
  createdBy: string;
  createdAt: string;
}

/** A call waiting for a person: exactly what the approvals inbox shows, and what replay must match. */
export interface PendingDecision {
  runId: string;
  callIndex: number;
  api: string;
  /** `METHOD /path/template`. */
  operation: string;
  operationId?: string;
  /** The exact request that would be sent (secrets redacted, vault references unexpanded). */
  request: RecordedRequest;
  arguments: JsonValue;
  /** Replay sends the call only if its canonical arguments still hash to this. */
  argumentsHash: string;
  /** Who asked: the run's source. */
  requestedBy: RunSource;
  requestedAt: string;
  expiresAt?: string;
  /** Set when a person approved this call before and the request changed since: what changed, in words. */
  changes?: string[];
  /** Set when the run forecast its writes: the whole plan, decided at once (the waiting call is its first write). */
  plan?: Plan;
}

/**
 * Plan, then apply: when a program reaches its first write that needs a person,
 * the workbench runs it on to the end without sending writes (each gets a
 * forecast answer), and asks once for the ordered list of writes it would make.
 */
export interface Plan {
  writes: PlanWrite[];
  /** How the forecast ended: the program finished, or stopped (often on a forecast value) after the writes listed. */
  ended: { kind: "completed" } | { kind: "failed"; reason: string; name: string; message: string };
  /** Reads the forecast made: sent (they are allowed), or answered with a forecast when they used a forecast value. */
  reads: { index: number; api: string; operation: string; sent: boolean; status?: number | string }[];
  /** The program's logs during the forecast. */
  logs: string[];
  /** What the program returned in the forecast (built on forecast values). */
  result?: JsonValue;
}

export interface PlanWrite {
  /** 1-based place among the plan's writes: what apply compares a live write with. */
  write: number;
  /** The call's index in the forecast. */
  index: number;
  api: string;
  /** The call form: an operation id, or "request". */
  op: string;
  /** `METHOD /path/template`. */
  operation: string;
  operationId?: string;
  /** As the program passed them (references unexpanded), forecast values included. */
  arguments: JsonValue;
  /** The request as a person sees it, forecast values in place. */
  request: RecordedRequest;
  /** Binds the approval to this request under the API's settings as they were (see proxy/approval.ts). */
  requestFingerprint: string;
  /** Parts of the arguments that come from an earlier write's response, not from the program. */
  dependsOn: PlanDependency[];
  /** What the program received instead of a real answer. */
  forecast: JsonValue;
  /** Why a person must look at this write in particular (it carries a vault reference, ...). */
  note?: string;
}

export interface PlanDependency {
  /** Where in the arguments: `id`, `body.parent`; `path` for a request() path that holds the value. */
  at: string;
  from: { write: number; index: number; operation: string; path: string };
  /** The forecast value that stands there in the plan. */
  forecast: string | number;
  /** True when the value sits inside a longer string (a request() path, a URL). */
  within?: boolean;
}

/** A person's decision on a plan: the first `approvedWrites` writes may be sent as planned. */
export interface PlanApproval {
  plan: Plan;
  approvedWrites: number;
  decidedBy: string;
  decidedAt: string;
}

/** What a waiting decision asks, in a few words: `POST /pets`, or `a plan of 4 writes to petstore`. */
export function decisionSummary(decision: Pick<PendingDecision, "operation" | "plan">): string {
  if (!decision.plan) return decision.operation;
  const n = decision.plan.writes.length;
  const apis = [...new Set(decision.plan.writes.map((w) => w.api))].join(", ");
  return `a plan of ${n} write${n === 1 ? "" : "s"} to ${apis}`;
}
