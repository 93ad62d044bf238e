/**
 * Approvals that reach the person while the window is not in front: an OS
 * notification when a call starts waiting (clicking it opens that call in the
 * inbox), the count of waiting decisions on the app's badge, and a tray menu
 * that lists them. It follows the event bus, so decisions asked for by an
 * agent, the CLI or the window itself all count. Electron stays in main.ts:
 * this module gets what it needs as ports, so it is tested in plain Node.
 */
import type { OpenTarget } from "../../shared/contract.ts";
import type { WorkbenchEvent } from "../../shared/events.ts";
import { decisionSummary, type PendingDecision } from "../../shared/runs.ts";
import type { NotificationChoice } from "./settings.ts";

export interface TrayEntry {
  label: string;
  target: OpenTarget;
}

export interface AttentionPorts {
  subscribe(listener: (event: WorkbenchEvent) => void): () => void;
  pending(): PendingDecision[];
  windowFocused(): boolean;
  notificationChoice(): NotificationChoice;
  notify(notice: { title: string; body: string; onClick: () => void }): void;
  setBadge(count: number): void;
  /** The tray's list: one entry per waiting decision, oldest first. */
  setTray(entries: TrayEntry[]): void;
  /** Brings the window forward and shows the target. */
  open(target: OpenTarget): void;
}

const RECOUNT_ON = new Set<WorkbenchEvent["type"]>(["decision.requested", "decision.made", "run.finished"]);

/** Starts following the bus; returns the unsubscribe. Shows the current count at once. */
export function followApprovals(ports: AttentionPorts): () => void {
  let last = -1;
  const recount = () => {
    const pending = ports.pending();
    if (pending.length !== last) ports.setBadge(pending.length);
    last = pending.length;
    ports.setTray(pending.map((decision) => ({ label: trayLabel(decision), target: { kind: "inbox", runId: decision.runId } })));
  };
  recount();
  return ports.subscribe((event) => {
    if (!RECOUNT_ON.has(event.type)) return;
    recount();
    if (event.type !== "decision.requested") return;
    const choice = ports.notificationChoice();
    if (choice === "never" || (choice === "when-unfocused" && ports.windowFocused())) return;
    const decision = event.decision;
    ports.notify({
      title: "Approval needed",
      body: `${requester(decision)} wants to send ${decisionSummary(decision)}${decision.plan ? "" : ` (${decision.api})`}.`,
      onClick: () => ports.open({ kind: "inbox", runId: decision.runId }),
    });
  });
}

export function requester(decision: Pick<PendingDecision, "requestedBy">): string {
  const by = decision.requestedBy;
  if (by.kind === "mcp") return by.client ? `Agent ${by.client}` : "An agent";
  return by.kind === "cli" ? "A command-line run" : "Your program";
}

function trayLabel(decision: PendingDecision): string {
  const label = `${decision.plan ? decisionSummary(decision) : `${decision.operation} (${decision.api})`} · ${requester(decision)}`;
  return label.length > 80 ? `${label.slice(0, 79)}…` : label;
}
