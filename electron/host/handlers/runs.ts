/**
 * `runs.*`, `decisions.*` and `rules.*`: running programs from the editor,
 * the run history, the approvals inbox and the allow rules. A decision answers
 * at once; the run continues in the background and the UI follows it through
 * the event bus (run.updated, run.finished), as the agent does through MCP.
 */
import type { Ack } from "../../../shared/contract.ts";
import type { RunSource } from "../../../shared/runs.ts";
import { exportRunJson } from "../runs/export-json.ts";
import { exportHar } from "../runs/har.ts";
import type { Workbench } from "../workbench.ts";
import type { Caller, HandlerContext, HandlerGroup } from "./context.ts";

type RunChannels =
  | "runs.execute" | "runs.search" | "runs.list" | "runs.get" | "runs.cancel" | "runs.replay" | "runs.export"
  | "decisions.list" | "decisions.decide" | "rules.list" | "rules.remove";

export function runHandlers(ctx: HandlerContext): HandlerGroup<RunChannels> {
  const { workbench } = ctx;
  const log = ctx.log ?? (() => {});
  return {
    "runs.execute": async ({ code, policy }, caller) => workbench.execute({ code, policy, source: sourceOf(caller) }),
    "runs.search": async ({ code }, caller) => workbench.search(code, sourceOf(caller)),
    "runs.list": async (filter) => workbench.store.listRuns({ ...filter, limit: filter.limit ?? 50 }),
    "runs.get": async ({ id }) => {
      const run = workbench.store.getRun(id);
      if (!run) return null;
      const pending = workbench.store.getPendingDecision(id);
      return { run, calls: workbench.store.getCalls(id), ...(pending ? { pending } : {}) };
    },
    "runs.cancel": async ({ id }, caller) => {
      const result = await workbench.engine.cancel(id, caller.actor);
      return result.ok ? { ok: true, message: result.message } : { ok: false, message: result.message };
    },
    "runs.replay": async ({ id, code, fresh }, caller) =>
      workbench.replay(id, { source: sourceOf(caller), ...(code !== undefined ? { code } : {}), ...(fresh ? { fresh } : {}) }),
    "runs.export": async ({ id, format }) => {
      const exported = format === "har" ? exportHar(workbench.store, id) : exportRunJson(workbench.store, id);
      if (!exported) return null;
      return { filename: `${id}.${format === "har" ? "har" : "json"}`, content: `${JSON.stringify(exported, null, 2)}\n` };
    },

    "decisions.list": async () => {
      workbench.engine.expireDue();
      return workbench.store.listPendingDecisions();
    },
    "decisions.decide": async ({ runId, decision, message, writes }, caller) => decide(workbench, runId, decision, caller, message, log, writes),

    "rules.list": async () => workbench.store.listAllowRules(),
    "rules.remove": async ({ api, operationId }): Promise<Ack> => {
      if (!workbench.store.removeAllowRule(api, operationId)) return { ok: false, message: `there is no allow rule for ${api}.${operationId}` };
      return { ok: true, message: `${api}.${operationId} needs a decision again` };
    },
  };
}

function sourceOf(caller: Caller): RunSource {
  return { kind: caller.actor };
}

/** Records the decision and lets the run go on without waiting for it: the caller hears of the outcome through events. */
async function decide(workbench: Workbench, runId: string, decision: "approve" | "deny" | "always", caller: Caller, message: string | undefined, log: (m: string) => void, writes?: number): Promise<Ack> {
  // The continuation sends through the API directory, which must be current (an API may have changed since the run stopped).
  await workbench.apis.refresh();
  const result = workbench.engine.decide(runId, { decision, by: caller.actor, ...(message ? { message } : {}), ...(writes !== undefined ? { writes } : {}) });
  if (!result.ok) return { ok: false, message: result.message };
  result.continuation.catch((err: unknown) => log(`run ${runId} failed to continue after a decision: ${err instanceof Error ? err.message : String(err)}`));
  const verb = decision === "deny" ? "denied" : decision === "always" ? "approved (and allowed from now on)" : "approved";
  const plan = result.decision.plan;
  if (plan) {
    const count = decision === "deny" ? plan.writes.length : Math.max(1, Math.min(writes ?? plan.writes.length, plan.writes.length));
    return { ok: true, message: `plan of ${plan.writes.length} write${plan.writes.length === 1 ? "" : "s"} ${verb}${decision !== "deny" && count < plan.writes.length ? ` (its first ${count})` : ""}; run ${runId} continues` };
  }
  return { ok: true, message: `${result.decision.operation} ${verb}; run ${runId} continues` };
}
