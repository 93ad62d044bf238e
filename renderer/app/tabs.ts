/** The middle area's tabs: operations, programs, runs, and the one-of-a-kind views. */
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
