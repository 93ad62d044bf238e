/**
 * One MCP session over a Workbench: the code-mode tools (search, read-only
 * execute, write-capable execute, get_code_run), code runs as `coderun://`
 * resources, and the notifications an agent needs: the tool list changed
 * (an API was added or removed), and a run it started finished after a
 * person's decision (a log message carrying the outcome in brief, see
 * finished-notice.ts, and a resource-updated notification).
 *
 * The SDK's low-level `Server` is used rather than `McpServer` because the
 * tool list (names fixed, descriptions built from the registry) must be
 * computed at each `tools/list`, not registered once.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Envelope } from "../../../shared/envelope.ts";
import type { RunSource } from "../../../shared/runs.ts";
import { workbenchVersion } from "../common/assets.ts";
import type { ToolNames } from "../tools/descriptions.ts";
import { TOOL_ROLES, toolDefinitions, toolNames, type ToolDefinition, type ToolRole } from "../tools/definitions.ts";
import { runView } from "../tools/run-view.ts";
import type { Workbench } from "../workbench.ts";
import { finishedNotice } from "./finished-notice.ts";
import { RunWatch } from "./run-watch.ts";

export const SERVER_NAME = "codemode-workbench";
const RESOURCE_SCHEME = "coderun://";
const VERSION = workbenchVersion();

export interface McpSessionOptions {
  toolNames?: Partial<ToolNames>;
  /** The tools this session offers (default all four): a read-only agent gets no mutation tool. */
  tools?: readonly ToolRole[];
  version?: string;
  log?: (message: string) => void;
  /** How often to look in the store for runs finished by another process (ms). */
  pollMs?: number;
}

export interface McpSession {
  server: Server;
  /** The client's `name version` from initialize, once known. */
  client(): string | undefined;
  close(): Promise<void>;
}

export function createMcpSession(workbench: Workbench, options: McpSessionOptions = {}): McpSession {
  const names: ToolNames = toolNames({ names: options.toolNames ?? {} });
  const offer = TOOL_ROLES.filter((role) => !options.tools || options.tools.includes(role));
  const offered = (role: ToolRole) => offer.includes(role);
  const maxTokens = () => workbench.agentLimits.current().maxResultTokens;
  const log = options.log ?? (() => {});
  const server = new Server(
    { name: SERVER_NAME, version: options.version ?? VERSION, title: "Codemode Workbench" },
    {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: false }, logging: {} },
      instructions: instructions(names, offered),
    },
  );
  /** Runs this session started, newest last: its resources. */
  const started: string[] = [];
  let closed = false;

  const client = (): string | undefined => {
    const info = server.getClientVersion();
    return info ? `${info.name}${info.version ? ` ${info.version}` : ""}` : undefined;
  };
  const source = (): RunSource => {
    const name = client();
    return name ? { kind: "mcp", client: name } : { kind: "mcp" };
  };

  const notifyFinished = (runId: string, envelope: Envelope | undefined) => {
    if (closed) return;
    const status = envelope?.status ?? workbench.store.getRun(runId)?.status ?? "finished";
    const data = finishedNotice(runId, status, envelope, offered("getRun") ? names.getRun : undefined);
    void server
      .sendLoggingMessage({ level: "info", logger: "workbench", data })
      .catch((err: unknown) => log(`mcp: could not send the finish notice of ${runId}: ${String(err)}`));
    void server.sendResourceUpdated({ uri: `${RESOURCE_SCHEME}${runId}` }).catch(() => {});
  };
  const watch = new RunWatch({ bus: workbench.bus, store: workbench.store, onFinished: notifyFinished, ...(options.pollMs ? { pollMs: options.pollMs } : {}) });
  const offApis = workbench.bus.subscribe((event) => {
    if (event.type === "apis.changed" && !closed) void server.sendToolListChanged().catch(() => {});
  });

  const tools = () => toolDefinitions(workbench, { names, offer });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await tools()).map(toListedTool) }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    const tool = (await tools()).find((t) => t.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}; the tools are ${offer.map((role) => names[role]).join(", ")}`);
    const answer = await tool.handler(args, { source: source() });
    if (!answer.ok) return failure(answer.message);
    const envelope = answer.envelope;
    if (envelope?.run) {
      started.push(envelope.run);
      if (started.length > 200) started.splice(0, started.length - 200);
      if (envelope.status === "pending") watch.watch(envelope.run);
    }
    return { ...text(answer.value), ...(answer.failed ? { isError: true } : {}) };
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [...started].reverse().flatMap((id) => {
      const run = workbench.store.getRunSummary(id);
      return run ? [{ uri: `${RESOURCE_SCHEME}${id}`, name: id, title: `${run.status}: ${run.title}`, mimeType: "application/json" }] : [];
    }),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: `${RESOURCE_SCHEME}{run}`, name: "code run", description: "A code run by id: the same envelope as get_code_run.", mimeType: "application/json" }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const runId = runIdOf(request.params.uri);
    const view = runId ? runView(workbench.store, runId, maxTokens()) : undefined;
    if (!view) throw new McpError(ErrorCode.InvalidParams, `no such code run: ${request.params.uri}`);
    return { contents: [{ uri: request.params.uri, mimeType: "application/json", text: JSON.stringify(view) }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const runId = runIdOf(request.params.uri);
    if (!runId || !workbench.store.getRun(runId)) throw new McpError(ErrorCode.InvalidParams, `no such code run: ${request.params.uri}`);
    watch.watch(runId);
    return {};
  });
  // A finished run is reported once and forgotten, so there is nothing to undo.
  server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));

  return {
    server,
    client,
    close: async () => {
      if (closed) return;
      closed = true;
      offApis();
      watch.close();
      await server.close().catch(() => {});
    },
  };
}

/** How to use the tools on offer, in a sentence or three. */
function instructions(names: ToolNames, offered: (role: ToolRole) => boolean): string {
  const find = offered("search") ? `Use ${names.search} to find operations in the registered OpenAPI specs, then` : "Use";
  const run = [offered("execute") ? `${names.execute} (reads)` : "", offered("mutations") ? `${names.mutations} (writes, approved by a person)` : ""].filter(Boolean).join(" or ");
  const parts = run ? [`${find} ${run} to run a JavaScript program that calls them.`] : [];
  if (offered("mutations")) parts.push(`A write answers "pending" at once; you are notified with the outcome when the run finishes${offered("getRun") ? ` and read it whole with ${names.getRun}` : ""}.`);
  else if (offered("getRun") && !run) parts.push(`Use ${names.getRun} to read a code run by id.`);
  if (!parts.length) parts.push(`Use ${names.search} to search the registered OpenAPI specs with code.`);
  return parts.join(" ");
}

/** A tool as `tools/list` shows it: the definition without its handler. */
function toListedTool({ handler: _handler, ...tool }: ToolDefinition): Tool {
  return tool;
}

function runIdOf(uri: string): string | undefined {
  if (!uri.startsWith(RESOURCE_SCHEME)) return undefined;
  const id = uri.slice(RESOURCE_SCHEME.length);
  return /^run_[A-Za-z0-9_-]+$/.test(id) ? id : undefined;
}

function text(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
