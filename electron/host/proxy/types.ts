/**
 * Shapes shared by the proxy's steps. A call travels: guest input → CallRequest
 * (normalised arguments) → matched operation → validated → policy → vault →
 * credentials → HTTP request → response → what the program receives.
 */
import type { ApiConfig } from "../../../shared/api-config.ts";
import type { Artifact, HttpMethod, Operation } from "../../../shared/artifact.ts";
import type { CallErrorName } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";

/** One registered API as the proxy sees it: everything needed to reach it. */
export interface ApiTarget {
  name: string;
  artifact: Artifact;
  config: ApiConfig;
  /** The effective base URL, including any path prefix (e.g. https://api.example.com/v2). */
  baseUrl: string;
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
