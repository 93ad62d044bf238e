/**
 * Code runs from the command line: list, show, export and cancel them, and
 * decide the call a pending run waits on (`approve`, `deny`), which continues
 * the run and prints its next envelope. Allow rules ("always allow") are listed
 * and removed with `rules`.
 *
 * When the app, `workbench serve` or a headless `workbench mcp` runs for the
 * data directory (its lockfile says so), these commands talk to it over its
 * bridge instead of opening the data directory here: a decision then
 * continues the run in the process that owns it, which notifies the agent
 * that started it. With nothing running, they work in-process as before.
 */
import { Option, type Command } from "commander";
import type { RunStatus } from "../../shared/envelope.ts";
import type { Envelope } from "../../shared/envelope.ts";
import { AGENT_LIMIT_BOUNDS, boundText } from "../../shared/limits.ts";
import { callState, runState, type RunAction } from "../../shared/run-states.ts";
import type { CallRecord, CodeRun, PendingDecision, Plan, RunSummary } from "../../shared/runs.ts";
import { resolveDataDir } from "../host/data-dir.ts";
import { exportRunJson } from "../host/runs/export-json.ts";
import { exportHar } from "../host/runs/har.ts";
import type { Workbench } from "../host/workbench.ts";
import { BridgeCallError, findRunningInstance, type BridgeClient } from "../serve/client.ts";
import { positiveInteger, withWorkbench, type DataDirFlag } from "./context.ts";
import { CliError, printJson, type CliIo } from "./io.ts";
import { limitParser } from "./limit-flags.ts";
import { printEnvelope, settledEnvelope } from "./run.ts";

const STATUSES: RunStatus[] = ["running", "pending", "completed", "failed", "cancelled", "interrupted"];

interface ListFlags extends DataDirFlag {
  status?: RunStatus[];
  source?: "cli" | "ui" | "mcp";
  api?: string;
  text?: string;
  limit?: number;
  json?: boolean;
}

export function registerRunsCommands(program: Command, io: CliIo): void {
  const runs = program.command("runs").description("List, show, export and cancel saved code runs.");

  runs
    .command("list")
    .description("Saved runs, newest first.")
    .addOption(new Option("--status <status>", "only runs with this status (repeatable)").choices(STATUSES).argParser((v: string, prev: RunStatus[] = []) => [...prev, v as RunStatus]))
    .addOption(new Option("--source <source>", "who started them").choices(["cli", "ui", "mcp"]))
    .option("--api <name>", "only runs that called this API")
    .option("--text <words>", "only runs whose program, logs or operations mention these words")
    .option("--limit <N>", "how many (default 50)", positiveInteger(1))
    .option("--json", "one JSON object per line")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (flags: ListFlags) => {
      const filter = {
        ...(flags.status ? { status: flags.status } : {}),
        ...(flags.source ? { source: flags.source } : {}),
        ...(flags.api ? { api: flags.api } : {}),
        ...(flags.text ? { text: flags.text } : {}),
        limit: flags.limit ?? 50,
      };
      const list = await viaRunningOrLocal(
        io,
        flags,
        (client) => {
          if (filter.limit > MAX_BRIDGE_LIST) io.stderr(`note: the running workbench lists at most ${MAX_BRIDGE_LIST} runs at a time\n`);
          return client.call("runs.list", { ...filter, limit: Math.min(filter.limit, MAX_BRIDGE_LIST) });
        },
        async (workbench) => workbench.store.listRuns(filter),
      );
      if (flags.json) for (const run of list) printJson(io, run, false);
      else io.stdout(list.length ? formatList(list) : "No runs match. Start one with: workbench run --code <file>\n");
    });

  runs
    .command("show")
    .description("One run: its program, calls, logs and result or error.")
    .argument("<run>", "the run id")
    .option("--json", "the run and its calls as JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { json?: boolean }) => {
      const detail = await viaRunningOrLocal(
        io,
        flags,
        (client) => client.call("runs.get", { id }),
        async (workbench) => {
          const run = workbench.store.getRun(id);
          return run ? { run, calls: workbench.store.getCalls(id), pending: workbench.store.getPendingDecision(id) } : null;
        },
      );
      if (!detail) throw new CliError(`no run ${id} (list runs with: workbench runs list)`);
      if (flags.json) printJson(io, { run: detail.run, calls: detail.calls, pending: detail.pending ?? null });
      else io.stdout(formatRun(detail.run, detail.calls, detail.pending ?? undefined));
    });

  runs
    .command("export")
    .description("A run as JSON (program, calls, result), or its calls as HAR 1.2 for other HTTP tools. Secrets are redacted.")
    .argument("<run>", "the run id")
    .option("--har", "HAR 1.2 instead of the workbench's JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { har?: boolean }) => {
      const text = await viaRunningOrLocal(
        io,
        flags,
        async (client) => (await client.call("runs.export", { id, format: flags.har ? "har" : "json" }))?.content,
        async (workbench) => {
          const exported = flags.har ? exportHar(workbench.store, id) : exportRunJson(workbench.store, id);
          return exported && `${JSON.stringify(exported, null, 2)}\n`;
        },
      );
      if (!text) throw new CliError(`no run ${id}`);
      io.stdout(text);
    });

  runs
    .command("cancel")
    .description("Stop a running run, or withdraw a pending run's waiting call.")
    .argument("<run>", "the run id")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag) => {
      const result = await viaRunningOrLocal(io, flags, (client) => client.call("runs.cancel", { id }), async (workbench) => workbench.engine.cancel(id, "cli"));
      if (!result.ok) throw new CliError(result.message ?? `could not cancel ${id}`);
      io.stdout(`${result.message}\n`);
    });

  program
    .command("approve")
    .description("Approve the call a pending run waits on; the run continues and its new envelope is printed.")
    .argument("<run>", "the pending run")
    .option("--always", "also allow this operation of this API from now on, without asking")
    .option("--writes <N>", "for a plan: approve only its first N writes (later ones ask one by one)", positiveWhole)
    .option("--max-result-tokens <N>", `cut the envelope structurally to about N tokens (${boundText(AGENT_LIMIT_BOUNDS.maxResultTokens)}, default ${AGENT_LIMIT_BOUNDS.maxResultTokens.default}; 0 prints it whole)`, limitParser(AGENT_LIMIT_BOUNDS.maxResultTokens, true))
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { always?: boolean; writes?: number; maxResultTokens?: number }) => {
      printEnvelope(io, await decideRun(io, flags, id, flags.always ? "always" : "approve", undefined, flags.writes), flags);
    });

  program
    .command("deny")
    .description("Deny the call a pending run waits on; the program receives CallDenied (with your message) and may go on.")
    .argument("<run>", "the pending run")
    .option("--message <text>", "why: the program receives it in the CallDenied error")
    .option("--max-result-tokens <N>", `cut the envelope structurally to about N tokens (${boundText(AGENT_LIMIT_BOUNDS.maxResultTokens)}, default ${AGENT_LIMIT_BOUNDS.maxResultTokens.default}; 0 prints it whole)`, limitParser(AGENT_LIMIT_BOUNDS.maxResultTokens, true))
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { message?: string; maxResultTokens?: number }) => {
      printEnvelope(io, await decideRun(io, flags, id, "deny", flags.message), flags);
    });

  const rules = program.command("rules").description("Allow rules: operations a person allowed to run without asking.");
  rules
    .command("list")
    .option("--json", "JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (flags: DataDirFlag & { json?: boolean }) => {
      const list = await viaRunningOrLocal(io, flags, (client) => client.call("rules.list", {}), async (workbench) => workbench.store.listAllowRules());
      if (flags.json) printJson(io, list);
      else io.stdout(list.length ? list.map((r) => `${r.api}.${r.operationId}  allowed by ${r.createdBy} at ${r.createdAt}\n`).join("") : "No allow rules. Approve a call with --always to add one.\n");
    });
  rules
    .command("remove")
    .argument("<api>", "the API")
    .argument("<operation>", "the operation id")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (api: string, operation: string, flags: DataDirFlag) => {
      const removed = await viaRunningOrLocal(
        io,
        flags,
        async (client) => (await client.call("rules.remove", { api, operationId: operation })).ok,
        async (workbench) => workbench.store.removeAllowRule(api, operation),
      );
      if (!removed) throw new CliError(`no allow rule for ${api}.${operation}`);
      io.stdout(`removed the allow rule for ${api}.${operation}; its calls need a decision again\n`);
    });
}

/** The bridge's runs.list answers at most this many per call (the contract's limit). */
const MAX_BRIDGE_LIST = 500;
const SETTLE_POLL_MS = 100;
const positiveWhole = positiveInteger(1);
const SETTLE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Runs `remote` against the instance serving the data directory, or `local`
 * over the data directory opened here when none runs. An instance that stops
 * answering between finding it and calling it counts as none.
 */
async function viaRunningOrLocal<T>(io: CliIo, flags: DataDirFlag, remote: (client: BridgeClient) => Promise<T>, local: (workbench: Workbench) => Promise<T>): Promise<T> {
  const client = await findRunningInstance(resolveDataDir({ flag: flags.dataDir, env: io.env }));
  if (client) {
    try {
      return await remote(client);
    } catch (err) {
      if (!(err instanceof BridgeCallError)) throw err;
      if (err.code !== "unreachable") throw new CliError(err.message);
      io.stderr(`note: ${err.message}; working on the data directory directly\n`);
    }
  }
  return withWorkbench(io, flags, local);
}

/** Decides and waits for the run's next envelope: in the running instance (which continues the run), or here. */
async function decideRun(io: CliIo, flags: DataDirFlag, id: string, decision: "approve" | "deny" | "always", message?: string, writes?: number): Promise<Envelope> {
  return viaRunningOrLocal(
    io,
    flags,
    async (client) => {
      const ack = await client.call("decisions.decide", { runId: id, decision, ...(message ? { message } : {}), ...(writes !== undefined ? { writes } : {}) });
      if (!ack.ok) throw new CliError(ack.message);
      return remoteSettledEnvelope(client, id);
    },
    async (workbench) => {
      const decided = await workbench.decide(id, decision, "cli", message, writes);
      if (!decided.ok) throw new CliError(decided.message);
      return settledEnvelope(io, workbench, decided.envelope);
    },
  );
}

/** The instance continues the run in the background; its envelope is final (or pending again) once it stops running. */
async function remoteSettledEnvelope(client: BridgeClient, id: string): Promise<Envelope> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const detail = await client.call("runs.get", { id });
    if (!detail) throw new CliError(`run ${id} disappeared from the running workbench`);
    if (detail.run.status !== "running") {
      return detail.run.envelope ?? { run: id, status: "failed", calls: [], logs: detail.run.logs, error: { reason: "Unavailable", name: "Unavailable", message: `the run is ${detail.run.status}` } };
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
  throw new CliError(`run ${id} is still running after the decision; follow it with: workbench runs show ${id}`);
}

function formatList(list: RunSummary[]): string {
  const rows = list.map((r) => [r.id, r.status + (r.failureReason ? ` (${r.failureReason})` : ""), r.source.kind + (r.source.client ? ` ${r.source.client}` : ""), r.tool, String(r.callCount), r.createdAt.replace("T", " ").slice(0, 19), r.title.slice(0, 60)]);
  const header = ["RUN", "STATUS", "SOURCE", "TOOL", "CALLS", "CREATED", "PROGRAM"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}

/** A plan as a person reads it before approving: each write's request, and what comes from an earlier write. */
export function formatPlan(plan: Plan): string[] {
  const n = plan.writes.length;
  const lines = [`waiting for approval of a plan: ${n} write${n === 1 ? "" : "s"} (the program ran to its end on forecast answers; nothing was sent)`];
  for (const w of plan.writes) {
    lines.push(`  write ${w.write}: ${w.request.method} ${w.request.url}${w.note ? `   (${w.note})` : ""}`);
    if (w.request.body) lines.push(`    body: ${w.request.body.length > 200 ? `${w.request.body.slice(0, 197)}...` : w.request.body}`);
    for (const d of w.dependsOn) lines.push(`    ${d.at || "the argument"} ← from write ${d.from.write}'s response (${d.from.operation}, ${d.from.path}); the forecast had ${JSON.stringify(d.forecast)}`);
  }
  if (plan.ended.kind === "failed") lines.push(`  the forecast stopped here: ${plan.ended.name}: ${plan.ended.message}`);
  return lines;
}

/** `runs show`: the run's state first (read from its status, never from a stale envelope), then its program, calls, logs and outcome. */
export function formatRun(run: CodeRun, calls: CallRecord[], pending: PendingDecision | undefined): string {
  const state = runState(run, pending);
  const lines = [
    `${run.id}  ${run.status}${run.failureReason ? ` (${run.failureReason})` : ""}  ${run.tool} ${run.policy}  from ${run.source.kind}${run.source.client ? ` ${run.source.client}` : ""}`,
    `created ${run.createdAt}${run.finishedAt ? `, finished ${run.finishedAt}` : ""}${run.parentId ? `, from ${run.parentId}` : ""}`,
    `state: ${state.headline}`,
    ...(state.detail ? [`  ${state.detail}`] : []),
    "",
    "program:",
    ...run.program.split("\n").map((l) => `  ${l}`),
    "",
    `calls (${calls.length}):`,
    ...calls.map((c) => formatCall(c, run.status, pending?.callIndex)),
  ];
  if (run.logs.length) lines.push("", "logs:", ...run.logs.map((l) => `  ${l}`));
  const envelope = run.envelope;
  if (pending?.plan) lines.push("", ...formatPlan(pending.plan));
  if (run.status === "completed" && envelope && "result" in envelope) lines.push("", "result:", JSON.stringify(envelope.result, null, 2));
  if (envelope?.truncated) lines.push(`  (${envelope.truncated})`);
  const next = nextCommands(run.id, state.actions, pending?.plan !== undefined);
  if (next.length) lines.push("", "next:", ...next.map((n) => `  ${n}`));
  return `${lines.join("\n")}\n`;
}

function formatCall(call: CallRecord, runStatus: CodeRun["status"], waitingCall: number | undefined): string {
  const state = callState(call, runStatus, waitingCall);
  const decision = call.decision && call.decision !== "not_needed" ? `  ${call.decision}${call.decidedBy ? ` by ${call.decidedBy}` : ""}` : "";
  return `  ${call.index}. ${call.operation}  ${state.label}${call.durationMs !== undefined ? `  ${call.durationMs} ms` : ""}${decision}${state.note ? `  (${state.note})` : ""}${call.error ? `  ${call.error.name}: ${call.error.message}` : ""}`;
}

/** The commands that work on a run in its state, and only those. */
function nextCommands(runId: string, actions: RunAction[], plan: boolean): string[] {
  const commands: string[] = [];
  if (actions.includes("approve")) commands.push(`approve:  workbench approve ${runId}   ${plan ? "(--writes K to approve only the plan's first K writes)" : "(--always to allow this operation from now on)"}`);
  if (actions.includes("deny")) commands.push(`deny:     workbench deny ${runId} --message "..."`);
  if (actions.includes("cancel")) commands.push(`cancel:   workbench runs cancel ${runId}`);
  return commands;
}
