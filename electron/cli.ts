/**
 * The `workbench` command. Each command group lives in electron/cli/<group>.ts
 * and registers itself here; `main` is what bin/workbench.js and the tests call.
 */
import { Command, CommanderError } from "commander";
import { CliError, type CliIo } from "./cli/io.ts";
import { registerIngestCommands } from "./cli/ingest.ts";
import { registerApiCommands } from "./cli/api.ts";
import { registerRunCommands } from "./cli/run.ts";
import { registerVaultCommands } from "./cli/vault.ts";
import { registerRunsCommands } from "./cli/runs.ts";
import { registerServeCommands } from "./cli/serve.ts";
import { registerMcpCommands } from "./cli/mcp.ts";
import { registerDoctorCommand } from "./cli/doctor.ts";
import { registerAuthCommands } from "./cli/auth.ts";

export const VERSION = workbenchVersion();
import { registerOpenCommands } from "./cli/open.ts";
import { workbenchVersion } from "./host/common/assets.ts";

export function buildProgram(io: CliIo): Command {
  const program = new Command("workbench")
    .description("Codemode Workbench: search OpenAPI specs and run programs that call the APIs, with writes approved by a person.")
    .version(VERSION, "-V, --version", "print the version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .exitOverride();
  registerIngestCommands(program, io);
  registerApiCommands(program, io);
  registerRunCommands(program, io);
  registerRunsCommands(program, io);
  registerVaultCommands(program, io);
  registerAuthCommands(program, io);
  registerServeCommands(program, io);
  registerMcpCommands(program, io);
  registerDoctorCommand(program, io);
  registerOpenCommands(program, io);
  for (const command of program.commands) inheritOutput(command, io);
  return program;
}

function inheritOutput(command: Command, io: CliIo): void {
  command.configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) }).exitOverride();
  for (const sub of command.commands) inheritOutput(sub, io);
}

/** Runs one command line; resolves with the exit code. Never throws. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  let code = 0;
  const wrapped: CliIo = { ...io, exit: (c) => { code = Math.max(code, c); io.exit(c); } };
  try {
    await buildProgram(wrapped).parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with exitCode 0; usage errors were already printed.
      return err.exitCode === 0 ? code : Math.max(code, err.exitCode || 1);
    }
    if (err instanceof CliError) {
      io.stderr(`error: ${err.message}\n`);
      return Math.max(code, err.exitCode);
    }
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return Math.max(code, 1);
  }
  return code;
}
