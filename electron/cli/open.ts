/**
 * `workbench open <run>`: shows a run in the app that serves the data
 * directory (brought to the front), or in the browser tabs of `workbench
 * serve`; `--inbox` shows the approvals inbox at the run's waiting call.
 * It needs a running instance: this command has no window of its own.
 */
import type { Command } from "commander";
import type { OpenTarget } from "../../shared/contract.ts";
import { resolveDataDir } from "../host/data-dir.ts";
import { BridgeCallError, findRunningInstance } from "../serve/client.ts";
import type { DataDirFlag } from "./context.ts";
import { CliError, type CliIo } from "./io.ts";

interface OpenFlags extends DataDirFlag {
  inbox?: boolean;
}

export function registerOpenCommands(program: Command, io: CliIo): void {
  program
    .command("open")
    .description("Show a run in the running app (or workbench serve's browser tabs).")
    .argument("<run>", "the run id, e.g. run_34dw8UaDvvrT")
    .option("--inbox", "show the approvals inbox at the call this run waits on")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action(async (runId: string, flags: OpenFlags) => {
      const dataDir = resolveDataDir({ flag: flags.dataDir, env: io.env });
      const running = await findRunningInstance(dataDir);
      if (!running || running.lock.kind === "mcp") {
        throw new CliError(`no app or workbench serve is running for ${dataDir}; start one (npm start, or workbench serve --open), or read the run here with: workbench runs show ${runId}`);
      }
      const target: OpenTarget = flags.inbox ? { kind: "inbox", runId } : { kind: "run", runId };
      try {
        const ack = await running.call("app.open", { target });
        io.stdout(`${runId}: ${ack.ok ? (ack.message ?? "shown") : ack.message}\n`);
        if (!ack.ok) io.exit(1);
      } catch (err) {
        if (err instanceof BridgeCallError) throw new CliError(err.message);
        throw err;
      }
    });
}
