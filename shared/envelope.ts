/**
 * The envelope: what an execute run returns, to the agent, the CLI and the UI,
 * and what the store keeps. Key order is fixed (run, status, calls, logs, then
 * result | error | pending) so that truncating the tail keeps the record of
 * what the program did upstream. See ../shared/DESIGN.md, "The envelope".
 */
import type { JsonValue } from "./json.ts";

/** Why a whole run ended without a result. */
export const RUN_FAILURE_REASONS = [
  "Error",
  "Timeout",
  "Memory",
  "OutputTooLarge",
  "Deadlock",
  "CallLimit",
  "ReplayMismatch",
  "Cancelled",
  "Unavailable",
] as const;
export type RunFailureReason = (typeof RUN_FAILURE_REASONS)[number];

/** Errors a program receives from a call and may catch. */
export const CALL_ERROR_NAMES = ["CallDenied", "CallRejected", "CallFailed", "VaultDenied"] as const;
export type CallErrorName = (typeof CALL_ERROR_NAMES)[number];

export type RunStatus = "running" | "pending" | "completed" | "failed" | "cancelled" | "interrupted";

export type CallStatus =
  | number // HTTP status of a call that was answered
  | "in_flight" // sent, no answer yet
  | "unknown" // was in flight when the process died or stopped waiting; never re-sent by itself
  | "pending" // waiting for a person's decision; not sent
  | "denied"
  | "rejected"
  | "failed";

export type Decision = "approved" | "denied" | "allowed_by_rule" | "not_needed" | "expired";

export interface EnvelopeCall {
  index: number;
  api: string;
  /** `METHOD /path/template`, and the operation id when matched. */
  operation: string;
  operation_id?: string;
  status: CallStatus;
  duration_ms?: number;
  idempotency_key?: string;
  decision?: Decision;
  /** Set when the result came from an earlier run instead of the network. */
  replayed?: boolean;
  /** The upstream answered 401 to the first request; the call was sent again once with a refreshed credential. */
  retried_after_401?: true;
  /** The upstream answered (with `status`) after the run had ended: the program never saw this answer. */
  answered_after_run_ended?: true;
  note?: string;
  /** `details` is data the program can branch on, e.g. CallFailed's `{reason: "timeout"}`. */
  error?: { name: CallErrorName; message: string; details?: JsonValue };
}

export interface EnvelopeError {
  reason: RunFailureReason;
  name: string;
  message: string;
}

export interface EnvelopePending {
  /** Index of the call that waits. */
  call: number;
  api: string;
  operation: string;
  method: string;
  url: string;
  /** Arguments as the program gave them, vault references unexpanded. */
  arguments: JsonValue;
  waiting_for: "approval";
  expires_at?: string;
  /** Asked again: a person approved this call before, and the request changed since. */
  changes?: string[];
  /** The run planned its writes: what a person approves at once (the waiting call is its first write). */
  plan?: EnvelopePlan;
  /** How to learn the outcome later. */
  next: string;
}

/** A plan, compact: how many writes to which operations, what depends on what, how the forecast ended. */
export interface EnvelopePlan {
  writes: number;
  operations: { api: string; operation: string; count: number }[];
  /** "write 4 (DELETE /items/{id}) uses write 1's response (body.id)". */
  depends?: string[];
  /** Set when the forecast stopped before the program's end (it threw on a forecast value, a limit). */
  stopped?: string;
}

export interface Envelope {
  run: string;
  status: "completed" | "failed" | "pending";
  calls: EnvelopeCall[];
  logs: string[];
  result?: JsonValue;
  error?: EnvelopeError;
  pending?: EnvelopePending;
  /** Present when the result was cut to fit: what was cut and how to ask for less. */
  truncated?: string;
}
