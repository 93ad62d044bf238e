/**
 * MCP over stdio (`workbench mcp`), two ways:
 * - `serveMcpStdio`: an MCP session over a Workbench in this process;
 * - `proxyMcpStdio`: a byte-for-byte relay of JSON-RPC messages between
 *   stdio and the `/mcp` endpoint of the instance already running for the
 *   data directory, so runs, approvals and notifications all live there.
 * Both end when stdin ends (the client went away).
 */
import type { Readable, Writable } from "node:stream";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { roleWord, type ToolRole } from "../tools/definitions.ts";
import type { Workbench } from "../workbench.ts";
import { TOOLS_HEADER } from "./http.ts";
import { createMcpSession, type McpSessionOptions } from "./session.ts";

export interface StdioStreams {
  input?: Readable;
  output?: Writable;
}

/** Serves one MCP session on stdio until stdin ends. */
export async function serveMcpStdio(workbench: Workbench, options: McpSessionOptions & StdioStreams = {}): Promise<void> {
  const { input = process.stdin, output = process.stdout, ...sessionOptions } = options;
  const session = createMcpSession(workbench, sessionOptions);
  const transport = new StdioServerTransport(input, output);
  const ended = untilEnded(input, transport);
  await session.server.connect(transport);
  await ended;
  await session.close();
}

export interface ProxyOptions extends StdioStreams {
  url: string;
  token: string;
  /** Narrows the relayed session's tools (`--tools`); the instance never offers more than it does itself. */
  tools?: readonly ToolRole[];
  log?: (message: string) => void;
}

/**
 * Relays messages between stdio and a Streamable HTTP MCP endpoint. A request
 * the endpoint cannot take (it stopped, the token was rotated) is answered
 * with a JSON-RPC error saying so, rather than left hanging.
 */
export async function proxyMcpStdio(options: ProxyOptions): Promise<void> {
  const { input = process.stdin, output = process.stdout, log = () => {} } = options;
  const local = new StdioServerTransport(input, output);
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
  if (options.tools) headers[TOOLS_HEADER] = options.tools.map(roleWord).join(",");
  const remote = new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers } });
  const initializeIds = new Set<string | number>();

  remote.onmessage = (message: JSONRPCMessage) => {
    // The HTTP transport must send the negotiated protocol version on every later request.
    if ("id" in message && message.id !== undefined && initializeIds.delete(message.id) && "result" in message) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === "string") remote.setProtocolVersion(version);
    }
    void local.send(message).catch((err: unknown) => log(`mcp proxy: could not write to stdout: ${String(err)}`));
  };
  remote.onerror = (err) => log(`mcp proxy: ${err.message}`);
  local.onmessage = (message: JSONRPCMessage) => {
    const id = "id" in message && "method" in message ? message.id : undefined;
    if (id !== undefined && "method" in message && message.method === "initialize") initializeIds.add(id);
    remote.send(message).catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      log(`mcp proxy: ${options.url} did not take a message: ${reason}`);
      if (id !== undefined) {
        void local.send({ jsonrpc: "2.0", id, error: { code: -32603, message: `The workbench at ${options.url} did not answer (${reason}). Is it still running? Restart this MCP server after starting it again.` } });
      }
    });
  };
  local.onerror = (err) => log(`mcp proxy: stdin: ${err.message}`);

  const ended = untilEnded(input, local);
  await remote.start();
  await local.start();
  await ended;
  await remote.terminateSession().catch(() => {});
  await remote.close().catch(() => {});
}

function untilEnded(input: Readable, transport: StdioServerTransport): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      input.off("end", done);
      input.off("close", done);
      void transport.close().finally(resolve);
    };
    input.on("end", done);
    input.on("close", done);
  });
}
