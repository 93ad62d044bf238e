/**
 * The Connect screen's facts: the MCP URL and bearer token, the stdio command
 * for clients that launch a process, and ready-to-paste config for Claude
 * Desktop (stdio: its config file runs a command), Claude Code and Cursor
 * (Streamable HTTP with the token in a header).
 */
import { fileURLToPath } from "node:url";
import type { ConnectInfo } from "../../../shared/contract.ts";

export const MCP_SERVER_KEY = "workbench";

/** bin/workbench.js of this checkout or install. */
export const WORKBENCH_BIN = fileURLToPath(new URL("../../../bin/workbench.js", import.meta.url));

export function stdioCommand(dataDir: string): string[] {
  // Inside Electron, execPath is the app, not a Node that runs the CLI.
  const node = process.versions.electron ? "node" : process.execPath;
  return [node, WORKBENCH_BIN, "mcp", "--data-dir", dataDir];
}

export function connectInfo(mcpUrl: string, token: string, dataDir: string): ConnectInfo {
  const [command, ...args] = stdioCommand(dataDir);
  const claudeDesktop = JSON.stringify({ mcpServers: { [MCP_SERVER_KEY]: { command, args } } }, null, 2);
  const claudeCode = `claude mcp add --transport http ${MCP_SERVER_KEY} ${mcpUrl} --header "Authorization: Bearer ${token}"`;
  const cursor = JSON.stringify({ mcpServers: { [MCP_SERVER_KEY]: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
  return { mcpUrl, token, stdioCommand: [command!, ...args], snippets: { claudeDesktop, claudeCode, cursor } };
}
