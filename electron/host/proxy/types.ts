/**
 * Shapes shared by the proxy's steps. A call travels: guest input → CallRequest
 * (normalised arguments) → matched operation → validated → policy → vault →
 * credentials → HTTP request → response → what the program receives.
 */
import type { ApiConfig } from "../../../shared/api-config.ts";
import type { Artifact, HttpMethod, Operation } from "../../../shared/artifact.ts";
import type { CallErrorName } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { CallRecord, PendingDecision } from "../../../shared/runs.ts";

/** One registered API as the proxy sees it: everything needed to reach it. */
export interface ApiTarget {
  name: string;
  artifact: Artifact;
  config: ApiConfig;
  /** The effective base URL, including any path prefix (e.g. https://api.example.com/v2). */
  baseUrl: string;
  /**
   * Set when the base URL is only known at runtime (the demo API's server gets
   * a new port in each process): the stable name approvals bind to instead, so
   * that approving from another process does not ask again for the port alone.
   */
  boundBaseUrl?: string;
  /**
   * A one-off API (`--spec` on the command line), not registered: it gets no
   * vault access and no allow rules, whatever vault items or rules name it.
   */
  oneOff?: boolean;
}

/** The program's arguments, normalised from either call form. */
export interface CallRequest {
  api: string;
  /** Set for `apis.<api>.<operationId>(...)`; absent for `apis.<api>.request(...)`. */
  operationId?: string;
  /** Set for `request(...)`: the method and the concrete path (`/pets/42`, query string allowed). */
  method?: HttpMethod;
  path?: string;
  pathParams: Record<string, JsonValue>;
  query: Record<string, JsonValue>;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  body?: JsonValue;
  /** Escape hatch: send `body` (a string) with this content type as is. */
  contentType?: string;
}

export interface MatchedCall {
  operation: Operation;
  /** Path parameter values, from the concrete path or the binding's arguments. */
  pathParams: Record<string, JsonValue>;
}

/** An error the program receives and may catch (shared/envelope.ts CALL_ERROR_NAMES). */
export interface CallError {
  name: CallErrorName;
  message: string;
  details?: JsonValue;
}

/** The HTTP request the proxy will send, before credentials. Headers lower-case. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Uint8Array | string;
  /** The body as recorded for people (text, or a summary of binary/multipart parts). */
  bodyPreview?: string;
  idempotencyKey?: string;
}

/** What the program receives from a call. */
export interface CallResponse {
  status: number;
  headers: Record<string, string>;
  body: JsonValue;
}

export class CallFailure extends Error {
  readonly callError: CallError;
  /** The operation, when the call got far enough to match one (for the call log). */
  operation?: Operation;
  constructor(name: CallErrorName, message: string, details?: JsonValue) {
    super(message);
    this.name = name;
    this.callError = details === undefined ? { name, message } : { name, message, details };
  }
}

/** A call as first recorded (before it is sent, or when it stops for a decision). */
export type CallEntry = Omit<CallRecord, "runId" | "startedAt" | "finishedAt">;
/** What a later write changes in a call's record. */
export type CallUpdate = Partial<Omit<CallRecord, "runId" | "index" | "api" | "operation" | "operationId" | "arguments" | "argumentsHash" | "startedAt" | "replayedFrom">>;

/**
 * Where the pipeline writes a run's calls: the run's RunLog (runs/run-log.ts),
 * which redacts everything it stores. The proxy holds nothing else of the store.
 */
export interface CallLog {
  recordCall(call: CallEntry): unknown;
  finishCall(index: number, patch: CallUpdate): unknown;
  /** Replaces a call that never left the machine (an approval asked again). */
  replaceCall(call: CallEntry): unknown;
  putPendingDecision(decision: PendingDecision): PendingDecision;
  isAllowed(api: string, operationId: string): boolean;
}

/** What a call answers the program (the sandbox's host-call answer has this shape, and one more: suspend). */
export type CallAnswer =
  | { ok: true; value: JsonValue }
  | { ok: false; error: { name: string; message: string; details?: JsonValue } };
