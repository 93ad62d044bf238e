/**
 * Code runs from the command line: list, show, export and cancel them, and
 * decide the call a pending run waits on (`approve`, `deny`), which continues
 * the run and prints its next envelope. Allow rules ("always allow") are listed
 * and removed with `rules`.
 */
import { Option, type Command } from "commander";
import type { RunStatus } from "../../shared/envelope.ts";
import type { CallRecord, CodeRun, RunSummary } from "../../shared/runs.ts";
import { exportRunJson } from "../host/runs/export-json.ts";
import { exportHar } from "../host/runs/har.ts";
import { positiveInteger, withWorkbench, type DataDirFlag } from "./context.ts";
import { CliError, printJson, type CliIo } from "./io.ts";
import { printEnvelope } from "./run.ts";

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
      await withWorkbench(io, flags, async (workbench) => {
        const list = workbench.store.listRuns({
          ...(flags.status ? { status: flags.status } : {}),
          ...(flags.source ? { source: flags.source } : {}),
          ...(flags.api ? { api: flags.api } : {}),
          ...(flags.text ? { text: flags.text } : {}),
          limit: flags.limit ?? 50,
        });
        if (flags.json) for (const run of list) printJson(io, run, false);
        else io.stdout(list.length ? formatList(list) : "No runs match. Start one with: workbench run --code <file>\n");
      });
    });

  runs
    .command("show")
    .description("One run: its program, calls, logs and result or error.")
    .argument("<run>", "the run id")
    .option("--json", "the run and its calls as JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { json?: boolean }) => {
      await withWorkbench(io, flags, async (workbench) => {
        const run = workbench.store.getRun(id);
        if (!run) throw new CliError(`no run ${id} (list runs with: workbench runs list)`);
        const calls = workbench.store.getCalls(id);
        if (flags.json) printJson(io, { run, calls, pending: workbench.store.getPendingDecision(id) ?? null });
        else io.stdout(formatRun(run, calls));
      });
    });

  runs
    .command("export")
    .description("A run as JSON (program, calls, result), or its calls as HAR 1.2 for other HTTP tools. Secrets are redacted.")
    .argument("<run>", "the run id")
    .option("--har", "HAR 1.2 instead of the workbench's JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { har?: boolean }) => {
      await withWorkbench(io, flags, async (workbench) => {
        const exported = flags.har ? exportHar(workbench.store, id) : exportRunJson(workbench.store, id);
        if (!exported) throw new CliError(`no run ${id}`);
        printJson(io, exported);
      });
    });

  runs
    .command("cancel")
    .description("Stop a running run, or withdraw a pending run's waiting call.")
    .argument("<run>", "the run id")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag) => {
      await withWorkbench(io, flags, async (workbench) => {
        const result = workbench.engine.cancel(id, "cli");
        if (!result.ok) throw new CliError(result.message);
        io.stdout(`${result.message}\n`);
      });
    });

  program
    .command("approve")
    .description("Approve the call a pending run waits on; the run continues and its new envelope is printed.")
    .argument("<run>", "the pending run")
    .option("--always", "also allow this operation of this API from now on, without asking")
    .option("--max-result-tokens <N>", "cut the result to about N tokens (default 6000)", positiveInteger(1))
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { always?: boolean; maxResultTokens?: number }) => {
      await withWorkbench(io, flags, async (workbench) => {
        const decided = await workbench.decide(id, flags.always ? "always" : "approve", "cli");
        if (!decided.ok) throw new CliError(decided.message);
        printEnvelope(io, decided.envelope, flags);
      });
    });

  program
    .command("deny")
    .description("Deny the call a pending run waits on; the program receives CallDenied (with your message) and may go on.")
    .argument("<run>", "the pending run")
    .option("--message <text>", "why: the program receives it in the CallDenied error")
    .option("--max-result-tokens <N>", "cut the result to about N tokens (default 6000)", positiveInteger(1))
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (id: string, flags: DataDirFlag & { message?: string; maxResultTokens?: number }) => {
      await withWorkbench(io, flags, async (workbench) => {
        const decided = await workbench.decide(id, "deny", "cli", flags.message);
        if (!decided.ok) throw new CliError(decided.message);
        printEnvelope(io, decided.envelope, flags);
      });
    });

  const rules = program.command("rules").description("Allow rules: operations a person allowed to run without asking.");
  rules
    .command("list")
    .option("--json", "JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (flags: DataDirFlag & { json?: boolean }) => {
      await withWorkbench(io, flags, async (workbench) => {
        const list = workbench.store.listAllowRules();
        if (flags.json) printJson(io, list);
        else io.stdout(list.length ? list.map((r) => `${r.api}.${r.operationId}  allowed by ${r.createdBy} at ${r.createdAt}\n`).join("") : "No allow rules. Approve a call with --always to add one.\n");
      });
    });
  rules
    .command("remove")
    .argument("<api>", "the API")
    .argument("<operation>", "the operation id")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (api: string, operation: string, flags: DataDirFlag) => {
      await withWorkbench(io, flags, async (workbench) => {
        if (!workbench.store.removeAllowRule(api, operation)) throw new CliError(`no allow rule for ${api}.${operation}`);
        io.stdout(`removed the allow rule for ${api}.${operation}; its calls need a decision again\n`);
      });
    });
}

function formatList(list: RunSummary[]): string {
  const rows = list.map((r) => [r.id, r.status + (r.failureReason ? ` (${r.failureReason})` : ""), r.source.kind + (r.source.client ? ` ${r.source.client}` : ""), r.tool, String(r.callCount), r.createdAt.replace("T", " ").slice(0, 19), r.title.slice(0, 60)]);
  const header = ["RUN", "STATUS", "SOURCE", "TOOL", "CALLS", "CREATED", "PROGRAM"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}

function formatRun(run: CodeRun, calls: CallRecord[]): string {
  const lines = [
    `${run.id}  ${run.status}${run.failureReason ? ` (${run.failureReason})` : ""}  ${run.tool} ${run.policy}  from ${run.source.kind}${run.source.client ? ` ${run.source.client}` : ""}`,
    `created ${run.createdAt}${run.finishedAt ? `, finished ${run.finishedAt}` : ""}${run.parentId ? `, from ${run.parentId}` : ""}`,
    "",
    "program:",
    ...run.program.split("\n").map((l) => `  ${l}`),
    "",
    `calls (${calls.length}):`,
    ...calls.map((c) => `  ${c.index}. ${c.operation}  ${c.status}${c.durationMs !== undefined ? `  ${c.durationMs} ms` : ""}${c.decision ? `  ${c.decision}${c.decidedBy ? ` by ${c.decidedBy}` : ""}` : ""}${c.error ? `  ${c.error.name}: ${c.error.message}` : ""}`),
  ];
  if (run.logs.length) lines.push("", "logs:", ...run.logs.map((l) => `  ${l}`));
  const envelope = run.envelope;
  if (envelope?.error) lines.push("", `error: ${envelope.error.reason}: ${envelope.error.name}: ${envelope.error.message}`);
  if (envelope?.pending) lines.push("", `waiting for approval: call ${envelope.pending.call} ${envelope.pending.method} ${envelope.pending.url}`, `  decide with: workbench approve ${run.id}   or   workbench deny ${run.id} --message "..."`);
  if (envelope && "result" in envelope) lines.push("", "result:", JSON.stringify(envelope.result, null, 2));
  return `${lines.join("\n")}\n`;
}
