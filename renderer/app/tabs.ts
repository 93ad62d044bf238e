/** The middle area's tabs: operations, programs, runs, and the one-of-a-kind views. */
import type { OpenTarget, TabRef } from "../../shared/contract.ts";
import type { ViewKind } from "./actions.ts";

export type Tab =
  | { kind: "operation"; key: string; api: string; operationId: string }
  | { kind: "program"; key: string; programId: string }
  | { kind: "run"; key: string; runId: string }
  | { kind: "api"; key: string; api: string }
  | { kind: ViewKind; key: ViewKind };

export const tabKey = {
  operation: (api: string, id: string) => `op:${api}:${id}`,
  program: (id: string) => `prog:${id}`,
  run: (id: string) => `run:${id}`,
  api: (api: string) => `api:${api}`,
};

export const VIEW_TITLES: Record<ViewKind, string> = {
  inbox: "Approvals",
  history: "Runs",
  vault: "Vault",
  connect: "Connect an agent",
  settings: "Settings",
};

/** A tab as the desktop app remembers it between launches, and back. */
export function tabToRef(tab: Tab): TabRef {
  switch (tab.kind) {
    case "operation":
      return { kind: "operation", api: tab.api, operationId: tab.operationId };
    case "program":
      return { kind: "program", programId: tab.programId };
    case "run":
      return { kind: "run", runId: tab.runId };
    case "api":
      return { kind: "api", api: tab.api };
    default:
      return { kind: tab.kind };
  }
}

export function refToTab(ref: TabRef): Tab {
  switch (ref.kind) {
    case "operation":
      return { kind: "operation", key: tabKey.operation(ref.api, ref.operationId), api: ref.api, operationId: ref.operationId };
    case "program":
      return { kind: "program", key: tabKey.program(ref.programId), programId: ref.programId };
    case "run":
      return { kind: "run", key: tabKey.run(ref.runId), runId: ref.runId };
    case "api":
      return { kind: "api", key: tabKey.api(ref.api), api: ref.api };
    default:
      return { kind: ref.kind, key: ref.kind };
  }
}

/** `#open=run/<id>` or `#open=inbox/<id>`: what the app was launched to show (a codemode-workbench:// link). */
export function launchTarget(hash: string): OpenTarget | undefined {
  const match = /(?:^#|&)open=([^&]+)/.exec(hash);
  if (!match) return undefined;
  const [kind, runId] = decodeURIComponent(match[1]!).split("/");
  if (kind === "run" && runId) return { kind, runId };
  if (kind === "inbox") return runId ? { kind, runId } : { kind };
  return undefined;
}
