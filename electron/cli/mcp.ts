/**
 * `workbench mcp`: MCP over stdio, for clients that launch a process (Claude
 * Desktop, Claude Code, Cursor). When the app or `workbench serve` runs for
 * the data directory, it relays to that instance's /mcp, so runs, approvals
 * and notifications live there. Otherwise it opens the data directory itself
 * and also starts the loopback server (lockfile included), so that
 * `workbench approve <run>` from another terminal reaches this process, which
 * owns the run, continues it, and notifies the agent. See docs/serve-security.md.
 *
 * stdout carries the protocol only: everything for people goes to stderr.
 */
import type { Command } from "commander";
import { resolveDataDir } from "../host/data-dir.ts";
import { proxyMcpStdio, serveMcpStdio } from "../host/mcp/stdio.ts";
import { startWorkbenchServer } from "../serve.ts";
import { findRunningInstance } from "../serve/client.ts";
import { withWorkbench, type DataDirFlag } from "./context.ts";
import type { CliIo } from "./io.ts";
import { limitsFromFlags } from "./limit-flags.ts";
import { addAgentFlags, signalWaiter, type AgentFlags } from "./serve.ts";

interface McpFlags extends DataDirFlag, AgentFlags {}

export function registerMcpCommands(program: Command, io: CliIo): void {
  addAgentFlags(program.command("mcp").description("Serve MCP on stdin/stdout: relays to the running workbench for the data directory, or runs a headless one."))
    .option("--data-dir <DIR>", "the workbench data directory")
    .addHelpText("after", "\nWhen relaying, --tools still narrows the tools; names and limits are the running workbench's (its flags and saved settings).")
    .action(async (flags: McpFlags) => {
      const say = (text: string) => io.stderr(`workbench mcp: ${text}\n`);
      const debug = (text: string) => io.env.WORKBENCH_DEBUG && say(text);
      const running = await findRunningInstance(resolveDataDir({ flag: flags.dataDir, env: io.env }));
      const overrides = limitsFromFlags(flags);
      if (running && running.lock.kind !== "mcp") {
        say(`relaying to the workbench at ${running.lock.url} (${running.lock.kind}, pid ${running.lock.pid}); writes are approved there`);
        const ignored = [...(flags.toolName ? ["--tool-name"] : []), ...Object.keys(overrides).map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`)];
        if (ignored.length) say(`${ignored.join(", ")} ignored: the running workbench's names and limits apply (set limits in its settings)`);
        await proxyMcpStdio({ url: `${running.lock.url}/mcp`, token: running.lock.mcpToken, log: say, ...(flags.tools ? { tools: flags.tools } : {}) });
        return;
      }
      const sessionOptions = {
        ...(flags.toolName ? { toolNames: flags.toolName } : {}),
        ...(flags.tools ? { tools: flags.tools } : {}),
      };
      await withWorkbench(
        io,
        flags,
        async (workbench) => {
          const stop = signalWaiter();
          const server = await startWorkbenchServer({ workbench, kind: "mcp", shell: "browser", reusePort: false, log: say, ...sessionOptions }).catch((err: unknown) => {
            stop.dispose();
            throw err;
          });
          say(`no workbench is running for ${workbench.dataDir}, so this process is one (headless).`);
          say(`approve or deny pending writes with \`workbench approve <run>\` / \`workbench deny <run>\`, or in a browser: ${server.openUrl}`);
          try {
            await Promise.race([serveMcpStdio(workbench, { ...sessionOptions, log: debug }), stop.signal]);
          } finally {
            stop.dispose();
            await server.close();
          }
        },
        { sandboxSize: 2, agentLimitOverrides: overrides, ...(flags.approvals ? { approvals: flags.approvals } : {}) },
      );
    });
}
