/**
 * The event bus's events: one stream that the UI (over IPC or server-sent
 * events) and the MCP layer (to notify agents) subscribe to.
 */
import type { OpenTarget } from "./contract.ts";
import type { Envelope } from "./envelope.ts";
import type { PendingDecision, RunSummary } from "./runs.ts";

export type WorkbenchEvent =
  | { type: "run.updated"; run: RunSummary }
  | { type: "run.finished"; runId: string; envelope: Envelope }
  | { type: "decision.requested"; decision: PendingDecision }
  | { type: "decision.made"; runId: string; callIndex: number; decision: "approved" | "denied" | "expired" | "cancelled"; by: string }
  | { type: "app.open"; target: OpenTarget }
  | { type: "apis.changed" }
  | { type: "settings.changed" }
  | { type: "vault.changed" }
  /** A sign-in to an API began, ended, was refreshed into expiry or signed out; `message` says how it ended. */
  | { type: "auth.changed"; api: string; ok?: boolean; message?: string };

export type WorkbenchEventType = WorkbenchEvent["type"];
