/**
 * `workbench run`, `workbench search` and `workbench replay`: programs over the
 * registered APIs (or one-off `--spec` APIs), printed as the envelope of
 * DESIGN.md. Every run is saved in the data directory's run store.
 *
 * Exit status: 0 whenever an envelope was printed, also for a failed or
 * pending run (the envelope's `status` says which); 1 when none could be made
 * (an unreadable program file, a bad flag, an unusable --spec).
 */
import { Option, type Command } from "commander";
import { apiConfig, apiNameProblem } from "../../shared/api-config.ts";
import type { Envelope } from "../../shared/envelope.ts";
import { AGENT_LIMIT_BOUNDS } from "../../shared/limits.ts";
import { runLimitsOf } from "../host/agent-limits.ts";
import { forAgent } from "../host/runs/envelope.ts";
import { defaultBaseUrl } from "../host/specs/base-url.ts";
import { describeConfigIssues } from "../host/specs/registry.ts";
import { loadSpecSource } from "../host/specs/source.ts";
import type { Workbench } from "../host/workbench.ts";
import { finishCallsOnTheWire, withWorkbench, type DataDirFlag } from "./context.ts";
import { CliError, printJson, readCodeArg, type CliIo } from "./io.ts";
import { addLimitFlags, limitsFromFlags, type LimitFlags } from "./limit-flags.ts";

const SOURCE = { kind: "cli" } as const;

interface RunFlags extends DataDirFlag, LimitFlags {
  code: string;
  policy: "read_only" | "all";
  yes?: boolean;
  approvals?: "plan" | "per-call";
  spec: string[];
}

/** A person's runs from the CLI take the limits from their flags (the agents' settings are for agents). */
function withLimitOptions(command: Command): Command {
  return addLimitFlags(command, undefined, { resultTokensZero: true }).option("--data-dir <DIR>", "the workbench data directory");
}

const specOption = () =>
  new Option("--spec <name=file|url[,base=URL]>", "use an API for this command only, without registering it (repeatable)").argParser((value: string, previous: string[] = []) => [...previous, value]).default([]);

export function registerRunCommands(program: Command, io: CliIo): void {
  withLimitOptions(
    program
      .command("run")
      .description("Run a program that calls the APIs (an async arrow function or a function body; JavaScript or TypeScript) and print its envelope as JSON.")
      .requiredOption("--code <file|->", "the program: a file, or - to read stdin")
      .addOption(new Option("--policy <policy>", "read_only sends only GET, HEAD and OPTIONS; all lets writes through with a person's approval").choices(["read_only", "all"]).default("read_only"))
      .option("--yes", "approve every write of this run up front (with --policy all)")
      .addOption(specOption()),
  )
    .addOption(new Option("--approvals <mode>", "how writes are approved: plan (the program runs to its end on forecast answers and you approve its writes at once; default) or per-call (each write stops the program)").choices(["plan", "per-call"]))
    .addHelpText("after", `
Without --yes, the first write under --policy all starts a plan: the program runs on to its end with forecast
answers (no write is sent) and a "pending" envelope lists the writes it would make; decide them at once with
  workbench approve <run> [--writes K]    or    workbench deny <run> [--message M]
With --approvals per-call, each write stops the program instead (workbench approve <run> [--always]).
Exit status: 0 whenever an envelope is printed (completed, failed or pending), 1 otherwise.`)
    .action(async (flags: RunFlags) => {
      if (flags.yes && flags.policy !== "all") throw new CliError("--yes only makes sense with --policy all: the read-only policy never sends a write");
      const code = await readCodeArg(io, flags.code);
      await withWorkbench(io, flags, async (workbench) => {
        await addOneOffSpecs(workbench, flags.spec);
        const envelope = await workbench.execute({
          code,
          policy: flags.policy,
          source: SOURCE,
          limits: runLimitsOf(limitsFromFlags(flags)),
          ...(flags.yes ? { preApprovedBy: "cli --yes" } : {}),
          ...(flags.approvals ? { approvals: flags.approvals } : {}),
        });
        printEnvelope(io, await settledEnvelope(io, workbench, envelope), flags);
      });
    });

  withLimitOptions(
    program
      .command("search")
      .description("Run a program over `specs.<api>` (the registered specs, read lazily) and print what it returns.")
      .requiredOption("--code <file|->", "the program: a file, or - to read stdin")
      .addOption(specOption()),
  ).action(async (flags: RunFlags) => {
    const code = await readCodeArg(io, flags.code);
    await withWorkbench(io, flags, async (workbench) => {
      await addOneOffSpecs(workbench, flags.spec);
      printEnvelope(io, await workbench.search(code, SOURCE, runLimitsOf(limitsFromFlags(flags))), flags);
    });
  });

  withLimitOptions(
    program
      .command("replay")
      .description("Run a saved run's program again (or an edit of it) as a new run linked to it, replaying its saved results where the calls match.")
      .argument("<run>", "the run to start from")
      .option("--code <file|->", "an edited program to run instead of the saved one")
      .option("--fresh", "send every call live instead of replaying saved results")
      .option("--yes", "approve every write of the new run up front"),
  ).action(async (runId: string, flags: DataDirFlag & LimitFlags & { code?: string; fresh?: boolean; yes?: boolean }) => {
    const code = flags.code === undefined ? undefined : await readCodeArg(io, flags.code);
    await withWorkbench(io, flags, async (workbench) => {
      if (!workbench.store.getRun(runId)) throw new CliError(`no run ${runId} (list runs with: workbench runs list)`);
      const envelope = await workbench.replay(runId, {
        source: SOURCE,
        limits: runLimitsOf(limitsFromFlags(flags)),
        ...(code !== undefined ? { code } : {}),
        ...(flags.fresh ? { fresh: true } : {}),
        ...(flags.yes ? { preApprovedBy: "cli --yes" } : {}),
      });
      printEnvelope(io, await settledEnvelope(io, workbench, envelope), flags);
    });
  });
}

/**
 * The run's envelope once the calls it left on the wire have ended: waits for
 * them (saying so on stderr), then reads the envelope as stored, which by then
 * says how each of those calls ended.
 */
export async function settledEnvelope(io: CliIo, workbench: Workbench, envelope: Envelope): Promise<Envelope> {
  if (workbench.engine.wire.list().length === 0) return envelope;
  await finishCallsOnTheWire(io, workbench);
  return (envelope.run && workbench.store.getRun(envelope.run)?.envelope) || envelope;
}

/** The envelope as an agent would get it: cut to `--max-result-tokens` (0: whole). */
export function printEnvelope(io: CliIo, envelope: Envelope, flags: Pick<LimitFlags, "maxResultTokens">): void {
  const tokens = flags.maxResultTokens ?? AGENT_LIMIT_BOUNDS.maxResultTokens.default;
  printJson(io, tokens > 0 ? forAgent(envelope, tokens) : envelope);
}

/** `--spec name=<file|url>[,base=URL]`: ingest and add the API for this process only. */
async function addOneOffSpecs(workbench: Workbench, specs: string[]): Promise<void> {
  for (const spec of specs) {
    const m = /^([A-Za-z_$][\w$]*)=(.+?)(?:,base=(.+))?$/.exec(spec);
    if (!m) throw new CliError(`--spec ${spec}: expected name=<file|url> or name=<file|url>,base=<URL>`);
    const [, name, location, base] = m as unknown as [string, string, string, string | undefined];
    // One-off APIs follow the registry's naming rules, and may not stand in for a registered API:
    // they would inherit its vault permissions and allow rules while sending to a URL given on the command line.
    const nameProblem = apiNameProblem(name);
    if (nameProblem) throw new CliError(`--spec ${name}: ${nameProblem}`);
    if (workbench.registry.entry(name)) throw new CliError(`--spec ${name}: an API named "${name}" is registered; a one-off API needs a name of its own (it gets no vault access and no allow rules)`);
    const loaded = await loadSpecSource(location);
    if (!loaded.ok) throw new CliError(`--spec ${name}: ${loaded.error.message}`);
    const { result } = workbench.registry.store.ingest(loaded.text);
    if (!result.ok) throw new CliError(`--spec ${name}: not a usable spec: ${result.error.message}${result.error.pointer ? ` at ${result.error.pointer}` : ""}`);
    let baseUrl = base;
    if (!baseUrl) {
      const fallback = defaultBaseUrl(result.artifact.servers, loaded.source);
      if (!fallback.ok) throw new CliError(`--spec ${name}: ${fallback.error.message}; add ,base=<URL>`);
      baseUrl = fallback.url;
    }
    const config = apiConfig.safeParse({ baseUrl });
    if (!config.success) throw new CliError(`--spec ${name}: ${describeConfigIssues(config.error.issues)}`);
    workbench.apis.addOneOff({ name, artifact: result.artifact, config: config.data, baseUrl: baseUrl.replace(/\/+$/, ""), oneOff: true });
  }
}
