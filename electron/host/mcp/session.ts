/**
 * One MCP session over a Workbench: the code-mode tools (search, read-only
 * execute, write-capable execute, get_code_run), code runs as `coderun://`
 * resources, and the notifications an agent needs: the tool list changed
 * (an API was added or removed), and a run it started finished after a
 * person's decision (a log message and a resource-updated notification).
 *
 * The SDK's low-level `Server` is used rather than `McpServer` because the
 * tool list (names fixed, descriptions built from the registry) must be
 * computed at each `tools/list`, not registered once.
 */
import { createRequire } from "node:module";
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
import { DEFAULT_TOOL_NAMES, executeDescription, getRunDescription, searchDescription, type DescribedApi, type ToolNames } from "../tools/descriptions.ts";
import { forAgent } from "../runs/envelope.ts";
import type { Workbench } from "../workbench.ts";
import { runView } from "./outcome.ts";
import { RunWatch } from "./run-watch.ts";

export const DEFAULT_MAX_RESULT_TOKENS = 6_000;
export const SERVER_NAME = "codemode-workbench";
const MAX_CODE_CHARS = 1024 * 1024;
const RESOURCE_SCHEME = "coderun://";
const VERSION = (createRequire(import.meta.url)("../../../package.json") as { version: string }).version;

export interface McpSessionOptions {
  toolNames?: Partial<ToolNames>;
  /** Results are cut structurally to about this many tokens (default 6,000). */
  maxResultTokens?: number;
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
  const names: ToolNames = { ...DEFAULT_TOOL_NAMES, ...options.toolNames };
  const maxTokens = options.maxResultTokens ?? DEFAULT_MAX_RESULT_TOKENS;
  const log = options.log ?? (() => {});
  const server = new Server(
    { name: SERVER_NAME, version: options.version ?? VERSION, title: "Codemode Workbench" },
    {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: false }, logging: {} },
      instructions: `Use ${names.search} to find operations in the registered OpenAPI specs, then ${names.execute} (reads) or ${names.mutations} (writes, approved by a person) to run a JavaScript program that calls them. A write answers "pending" at once; you are notified when the run finishes and read it with ${names.getRun}.`,
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
    const outcome = envelope?.error ? `${status} (${envelope.error.reason}: ${envelope.error.message})` : status;
    void server
      .sendLoggingMessage({ level: "info", logger: "workbench", data: { event: "run.finished", run: runId, status, message: `Run ${runId} finished: ${outcome}. Read it with ${names.getRun}({"run": "${runId}"}).` } })
      .catch((err: unknown) => log(`mcp: could not send the finish notice of ${runId}: ${String(err)}`));
    void server.sendResourceUpdated({ uri: `${RESOURCE_SCHEME}${runId}` }).catch(() => {});
  };
  const watch = new RunWatch({ bus: workbench.bus, store: workbench.store, onFinished: notifyFinished, ...(options.pollMs ? { pollMs: options.pollMs } : {}) });
  const offApis = workbench.bus.subscribe((event) => {
    if (event.type === "apis.changed" && !closed) void server.sendToolListChanged().catch(() => {});
  });

  const describedApis = async (): Promise<DescribedApi[]> => {
    await workbench.apis.refresh();
    return workbench.apis.list().map((t) => ({ name: t.name, artifact: t.artifact }));
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const apis = await describedApis();
    return { tools: toolList(names, apis) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    if (name === names.getRun) {
      const runId = args.run;
      if (typeof runId !== "string" || !runId) return failure(`${names.getRun} needs {"run": "<run id>"}, the run field of an execute answer`);
      const view = runView(workbench.store, runId, maxTokens);
      if (!view) return failure(`there is no run ${runId}; the id is the "run" field of an execute answer`);
      return text(view);
    }
    const tool = name === names.search ? "search" : name === names.execute ? "read_only" : name === names.mutations ? "all" : undefined;
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}; the tools are ${Object.values(names).join(", ")}`);
    const code = args.code;
    if (typeof code !== "string" || !code.trim()) return failure(`${name} needs {"code": "<an async arrow function>"}`);
    if (code.length > MAX_CODE_CHARS) return failure(`the program is longer than ${MAX_CODE_CHARS} characters; send a shorter one`);
    const envelope = tool === "search" ? await workbench.search(code, source()) : await workbench.execute({ code, policy: tool, source: source() });
    if (envelope.run) started.push(envelope.run);
    if (started.length > 200) started.splice(0, started.length - 200);
    if (envelope.status === "pending") watch.watch(envelope.run);
    return { ...text(forAgent(envelope, maxTokens)), ...(envelope.status === "failed" ? { isError: true } : {}) };
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
    const view = runId ? runView(workbench.store, runId, maxTokens) : undefined;
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

export function toolList(names: ToolNames, apis: DescribedApi[]): Tool[] {
  const code = (what: string) => ({
    type: "object" as const,
    properties: { code: { type: "string", description: what } },
    required: ["code"],
    additionalProperties: false,
  });
  return [
    {
      name: names.search,
      description: searchDescription(apis),
      inputSchema: code("An async arrow function over `specs`, e.g. async () => specs.petstore.find(\"pet\", 10)"),
      annotations: { title: "Search the API specs", readOnlyHint: true, openWorldHint: false },
    },
    {
      name: names.execute,
      description: executeDescription(apis, "read_only", names),
      inputSchema: code("An async arrow function (or a function body) that calls apis.<api>.<operation>(...) and returns a small result"),
      annotations: { title: "Run a read-only program", readOnlyHint: true, openWorldHint: true },
    },
    {
      name: names.mutations,
      description: executeDescription(apis, "all", names),
      inputSchema: code("An async arrow function (or a function body); its writes wait for a person's approval"),
      annotations: { title: "Run a program that may write (approved by a person)", readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    {
      name: names.getRun,
      description: getRunDescription(),
      inputSchema: { type: "object", properties: { run: { type: "string", description: "The run id, e.g. run_abc123" } }, required: ["run"], additionalProperties: false },
      annotations: { title: "Read a code run", readOnlyHint: true, openWorldHint: false },
    },
  ];
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
