import { describe, expect, it } from "vitest";
import type { WorkbenchEvent } from "../../shared/events.ts";
import type { PendingDecision } from "../../shared/runs.ts";
import type { OpenTarget } from "../../shared/contract.ts";
import { EventBus } from "../host/events.ts";
import { followApprovals, type TrayEntry } from "./attention.ts";
import type { NotificationChoice } from "./settings.ts";

function decision(runId: string, client?: string): PendingDecision {
  return {
    runId,
    callIndex: 0,
    api: "petstore",
    operation: "POST /pets",
    operationId: "createPet",
    request: { method: "POST", url: "http://127.0.0.1:1/pets", headers: {} },
    arguments: {},
    argumentsHash: "h",
    requestedBy: client ? { kind: "mcp", client } : { kind: "ui" },
    requestedAt: "2026-11-29T10:00:00.000Z",
  };
}

function harness(choice: NotificationChoice = "when-unfocused") {
  const bus = new EventBus();
  const pending: PendingDecision[] = [];
  const seen = { badges: [] as number[], trays: [] as TrayEntry[][], notices: [] as { title: string; body: string; onClick: () => void }[], opened: [] as OpenTarget[] };
  const state = { focused: false, choice };
  const stop = followApprovals({
    subscribe: (listener) => bus.subscribe(listener),
    pending: () => [...pending],
    windowFocused: () => state.focused,
    notificationChoice: () => state.choice,
    notify: (notice) => seen.notices.push(notice),
    setBadge: (count) => seen.badges.push(count),
    setTray: (entries) => seen.trays.push(entries),
    open: (target) => seen.opened.push(target),
  });
  const ask = (d: PendingDecision) => {
    pending.push(d);
    bus.publish({ type: "decision.requested", decision: d });
  };
  const decide = (runId: string) => {
    pending.splice(pending.findIndex((d) => d.runId === runId), 1);
    bus.publish({ type: "decision.made", runId, callIndex: 0, decision: "approved", by: "ui" } satisfies WorkbenchEvent);
  };
  return { bus, seen, state, ask, decide, stop };
}

describe("approvals that reach the person", () => {
  it("counts waiting decisions on the badge and lists them in the tray, from the first moment", () => {
    const h = harness();
    expect(h.seen.badges).toEqual([0]);
    h.ask(decision("run_a", "claude-code 2.1.0"));
    h.ask(decision("run_b"));
    expect(h.seen.badges).toEqual([0, 1, 2]);
    expect(h.seen.trays.at(-1)).toEqual([
      { label: "POST /pets (petstore) · Agent claude-code 2.1.0", target: { kind: "inbox", runId: "run_a" } },
      { label: "POST /pets (petstore) · Your program", target: { kind: "inbox", runId: "run_b" } },
    ]);
    h.decide("run_a");
    expect(h.seen.badges.at(-1)).toBe(1);
    h.bus.publish({ type: "apis.changed" });
    expect(h.seen.badges).toHaveLength(4);
  });

  it("notifies when the window is not in front; the click opens that call in the inbox", () => {
    const h = harness();
    h.ask(decision("run_a", "cursor 1.0"));
    expect(h.seen.notices.map(({ title, body }) => ({ title, body }))).toEqual([{ title: "Approval needed", body: "Agent cursor 1.0 wants to send POST /pets (petstore)." }]);
    h.seen.notices[0]!.onClick();
    expect(h.seen.opened).toEqual([{ kind: "inbox", runId: "run_a" }]);
    h.state.focused = true;
    h.ask(decision("run_b", "cursor 1.0"));
    expect(h.seen.notices).toHaveLength(1);
  });

  it("follows the person's choice: always, or never", () => {
    const always = harness("always");
    always.state.focused = true;
    always.ask(decision("run_a"));
    expect(always.seen.notices).toHaveLength(1);
    const never = harness("never");
    never.ask(decision("run_a"));
    expect(never.seen.notices).toHaveLength(0);
    expect(never.seen.badges.at(-1)).toBe(1);
  });

  it("stops when unsubscribed", () => {
    const h = harness();
    h.stop();
    h.ask(decision("run_a"));
    expect(h.seen.badges).toEqual([0]);
  });
});
