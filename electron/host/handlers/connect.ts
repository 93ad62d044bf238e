/**
 * The Connect screen's facts: the MCP URL and bearer token, the stdio command
 * for clients that launch a process, and ready-to-paste config for Claude
 * Desktop (stdio: its config file runs a command), Claude Code and Cursor
 * (Streamable HTTP with the token in a header).
 */
import { fileURLToPath } from "node:url";
import type { ConnectInfo } from "../../../shared/contract.ts";
import { entryUrl } from "../common/assets.ts";

export const MCP_SERVER_KEY = "workbench";

/** bin/workbench.js of this checkout or install, or the CLI built into the app's bundle. */
export const WORKBENCH_BIN = fileURLToPath(entryUrl("cli"));

/** Inside Electron, execPath is the app: it runs the bundled CLI as Node when ELECTRON_RUN_AS_NODE is set (and reads app.asar). */
export function stdioLaunch(dataDir: string): { command: string[]; env?: Record<string, string> } {
  const command = [process.execPath, WORKBENCH_BIN, "mcp", "--data-dir", dataDir];
  return process.versions.electron ? { command, env: { ELECTRON_RUN_AS_NODE: "1" } } : { command };
}

export function connectInfo(mcpUrl: string, token: string, dataDir: string): ConnectInfo {
  const { command: [command, ...args], env } = stdioLaunch(dataDir);
  const claudeDesktop = JSON.stringify({ mcpServers: { [MCP_SERVER_KEY]: { command, args, ...(env ? { env } : {}) } } }, null, 2);
  const claudeCode = `claude mcp add --transport http ${MCP_SERVER_KEY} ${mcpUrl} --header "Authorization: Bearer ${token}"`;
  const cursor = JSON.stringify({ mcpServers: { [MCP_SERVER_KEY]: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
  return { mcpUrl, token, stdioCommand: [command!, ...args], ...(env ? { stdioEnv: env } : {}), snippets: { claudeDesktop, claudeCode, cursor } };
}
