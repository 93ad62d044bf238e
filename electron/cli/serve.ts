/**
 * `workbench serve`: the workbench in a browser tab. Opens the data
 * directory's Workbench, starts the loopback server (UI, bridge, /mcp),
 * prints the URL to open (its fragment carries the session token) and the
 * MCP endpoint, and runs until SIGINT or SIGTERM, when it removes its lockfile.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import type { ToolNames } from "../host/tools/descriptions.ts";
import { parseToolRoles, type ToolRole } from "../host/tools/definitions.ts";
import { AlreadyServing, startWorkbenchServer, type WorkbenchServer } from "../serve.ts";
import { openInBrowser } from "../serve/open-browser.ts";
import { NOT_BUILT_MESSAGE } from "../serve/static.ts";
import { withWorkbench, type DataDirFlag } from "./context.ts";
import { CliError, type CliIo } from "./io.ts";
import { addLimitFlags, limitsFromFlags, type LimitFlags } from "./limit-flags.ts";

export interface AgentFlags extends LimitFlags {
  toolName?: Partial<ToolNames>;
  tools?: ToolRole[];
  approvals?: "plan" | "per-call";
}

interface ServeFlags extends DataDirFlag, AgentFlags {
  port?: number;
  open?: boolean;
}

/** Flags `serve` and `mcp` share: which tools agents get, under which names and limits. */
export function addAgentFlags(command: Command): Command {
  command
    .option("--tools <list>", "offer only these MCP tools, comma-separated: search, execute, mutations, get-run (e.g. search,execute,get-run: no writes)", parseToolList)
    .option("--tool-name <role=name>", "rename an MCP tool: search, execute, mutations or get-run (repeatable)", parseToolName);
  addApprovalsFlag(command, "agents' writes");
  return addLimitFlags(command, "The limit flags apply to agent programs (MCP tool calls) and win over the saved settings (the app's Settings) while this process runs.");
}

/** `--approvals plan|per-call`: how this face's runs approve writes (APIs set to per-call ask one by one anyway). */
export function addApprovalsFlag(command: Command, whose: string): Command {
  return command.addOption(
    new Option("--approvals <mode>", `how ${whose} are approved: plan (the program runs to its end on forecast answers and a person approves its writes at once; default) or per-call (each write stops the program)`).choices(["plan", "per-call"]),
  );
}

export function registerServeCommands(program: Command, io: CliIo): void {
  addAgentFlags(
    program
      .command("serve")
      .description("Serve the workbench UI, its bridge and the MCP endpoint on 127.0.0.1, until interrupted.")
      .option("--port <N>", "the port (default: the one used last time if free, else any free port)", portNumber)
      .option("--open", "open the URL in the default browser"),
  )
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (flags: ServeFlags) => {
      await withWorkbench(
        io,
        flags,
        async (workbench) => {
          // Listening before the URL is printed: a Ctrl-C right after it must still remove the lockfile.
          const stop = signalWaiter();
          let server: WorkbenchServer;
          try {
            server = await startWorkbenchServer({
              workbench,
              kind: "serve",
              shell: "browser",
              ...(flags.port !== undefined ? { port: flags.port } : {}),
              ...(flags.toolName ? { toolNames: flags.toolName } : {}),
              ...(flags.tools ? { tools: flags.tools } : {}),
              log: (message) => io.stderr(`${message}\n`),
            });
          } catch (err) {
            stop.dispose();
            if (err instanceof AlreadyServing) throw new CliError(`${err.message}; open that one, or stop it first (pid ${err.lock.pid})`);
            throw new CliError(err instanceof Error ? err.message : String(err));
          }
          io.stdout(
            [
              `Codemode Workbench is serving ${workbench.dataDir}`,
              `  open:  ${server.openUrl}`,
              `  mcp:   ${server.mcpUrl}`,
              `  token: ${server.connect.info().token}  (send as Authorization: Bearer <token>; also under Connect in the UI)`,
              `  stop:  Ctrl-C`,
              "",
            ].join("\n"),
          );
          if (!server.rendererBuilt) io.stderr(`note: ${NOT_BUILT_MESSAGE}\n`);
          if (flags.open) {
            const problem = await openInBrowser(server.openUrl);
            if (problem) io.stderr(`note: could not open a browser (${problem}); open the URL above yourself\n`);
          }
          const signal = await stop.signal;
          io.stderr(`${signal}: stopping\n`);
          await server.close();
        },
        { sandboxSize: undefined, agentLimitOverrides: limitsFromFlags(flags), ...(flags.approvals ? { approvals: flags.approvals } : {}) },
      );
    });
}

/**
 * `signal` resolves with the first SIGINT, SIGTERM or SIGHUP. Later ones do not
 * kill the process mid-shutdown (a `kill` of the process group and a forwarded
 * signal often arrive together, and the lockfile must still be removed); a
 * third one gives up and exits. `dispose` gives the signals back.
 */
export function signalWaiter(): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  let received = 0;
  let handler: (signal: NodeJS.Signals) => void = () => {};
  const dispose = () => {
    for (const s of signals) process.off(s, handler);
  };
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    handler = (name) => {
      received += 1;
      if (received === 1) resolve(name);
      else if (received >= 3) process.exit(1);
    };
    for (const s of signals) process.on(s, handler);
  });
  return { signal, dispose };
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 0 || n > 65535) throw new InvalidArgumentError("must be a port number from 0 to 65535 (0: any free port)");
  return n;
}

/** `--tools search,execute`: the tools to offer. */
export function parseToolList(value: string): ToolRole[] {
  const parsed = parseToolRoles(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.message);
  return parsed.roles;
}

const ROLES: Record<string, keyof ToolNames> = { search: "search", execute: "execute", mutations: "mutations", "get-run": "getRun", get_run: "getRun", getRun: "getRun" };

/** `--tool-name role=name`: a host can gate tools on the name alone, so each may be renamed (MCP's name rules apply). */
export function parseToolName(value: string, previous: Partial<ToolNames> = {}): Partial<ToolNames> {
  const match = /^([A-Za-z_-]+)=(.+)$/.exec(value);
  const role = match ? ROLES[match[1]!] : undefined;
  if (!match || !role) throw new InvalidArgumentError("expected role=name, the role one of search, execute, mutations, get-run (e.g. execute=run_code)");
  const name = match[2]!;
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name)) throw new InvalidArgumentError(`"${name}" is not a valid MCP tool name (letters, digits, _ . and -, at most 128)`);
  return { ...previous, [role]: name };
}
