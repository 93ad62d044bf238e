/**
 * The code-mode tools as data: name, description (built from the registry at
 * the time they are listed), JSON input schema, annotations, and a handler.
 * The MCP server lists and calls these; any other host (an in-house agent
 * loop) can use them the same way. Names are configurable so a host can gate
 * on the name alone: the write-capable tool is the only one that can write.
 */
import type { Envelope } from "../../../shared/envelope.ts";
import type { RunSource } from "../../../shared/runs.ts";
import { forAgent } from "../runs/envelope.ts";
import type { Workbench } from "../workbench.ts";
import { DEFAULT_TOOL_NAMES, executeDescription, getRunDescription, searchDescription, type DescribedApi, type ToolNames } from "./descriptions.ts";
import { runView } from "./run-view.ts";

export const DEFAULT_MAX_RESULT_TOKENS = 6_000;
const MAX_CODE_CHARS = 1024 * 1024;

export interface ToolContext {
  /** Who calls: recorded as the run's source (an MCP client's name and version). */
  source: RunSource;
}

export type ToolAnswer =
  /** `value` is what the caller should see (the envelope, cut to the result budget); `envelope` the whole one, when a run was made. */
  | { ok: true; value: unknown; failed: boolean; envelope?: Envelope }
  /** The call could not start (missing or malformed arguments): nothing ran. */
  | { ok: false; message: string };

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, { type: string; description: string }>; required: string[]; additionalProperties: false };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint?: boolean; openWorldHint: boolean };
  handler(args: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

export interface ToolOptions {
  names?: Partial<ToolNames>;
  /** Results are cut structurally to about this many tokens (default 6,000). */
  maxResultTokens?: number;
}

export function toolNames(options: ToolOptions = {}): ToolNames {
  return { ...DEFAULT_TOOL_NAMES, ...options.names };
}

/** The four tools over a workbench, described from the APIs registered now. */
export async function toolDefinitions(workbench: Workbench, options: ToolOptions = {}): Promise<ToolDefinition[]> {
  await workbench.apis.refresh();
  return defineTools(workbench, workbench.apis.list().map((t) => ({ name: t.name, artifact: t.artifact })), options);
}

export function defineTools(workbench: Workbench, apis: DescribedApi[], options: ToolOptions = {}): ToolDefinition[] {
  const names = toolNames(options);
  const maxTokens = options.maxResultTokens ?? DEFAULT_MAX_RESULT_TOKENS;
  const codeSchema = (what: string): ToolDefinition["inputSchema"] => ({
    type: "object",
    properties: { code: { type: "string", description: what } },
    required: ["code"],
    additionalProperties: false,
  });
  const program = (name: string, args: Record<string, unknown>): string | { ok: false; message: string } => {
    const code = args.code;
    if (typeof code !== "string" || !code.trim()) return { ok: false, message: `${name} needs {"code": "<an async arrow function>"}` };
    if (code.length > MAX_CODE_CHARS) return { ok: false, message: `the program is longer than ${MAX_CODE_CHARS} characters; send a shorter one` };
    return code;
  };
  const answer = (envelope: Envelope): ToolAnswer => ({ ok: true, value: forAgent(envelope, maxTokens), failed: envelope.status === "failed", envelope });
  return [
    {
      name: names.search,
      description: searchDescription(apis),
      inputSchema: codeSchema('An async arrow function over `specs`, e.g. async () => specs.petstore.find("pet", 10)'),
      annotations: { title: "Search the API specs", readOnlyHint: true, openWorldHint: false },
      async handler(args, context) {
        const code = program(names.search, args);
        return typeof code === "string" ? answer(await workbench.search(code, context.source)) : code;
      },
    },
    {
      name: names.execute,
      description: executeDescription(apis, "read_only", names),
      inputSchema: codeSchema("An async arrow function (or a function body) that calls apis.<api>.<operation>(...) and returns a small result"),
      annotations: { title: "Run a read-only program", readOnlyHint: true, openWorldHint: true },
      async handler(args, context) {
        const code = program(names.execute, args);
        return typeof code === "string" ? answer(await workbench.execute({ code, policy: "read_only", source: context.source })) : code;
      },
    },
    {
      name: names.mutations,
      description: executeDescription(apis, "all", names),
      inputSchema: codeSchema("An async arrow function (or a function body); its writes wait for a person's approval"),
      annotations: { title: "Run a program that may write (approved by a person)", readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      async handler(args, context) {
        const code = program(names.mutations, args);
        return typeof code === "string" ? answer(await workbench.execute({ code, policy: "all", source: context.source })) : code;
      },
    },
    {
      name: names.getRun,
      description: getRunDescription(),
      inputSchema: { type: "object", properties: { run: { type: "string", description: "The run id, e.g. run_abc123" } }, required: ["run"], additionalProperties: false },
      annotations: { title: "Read a code run", readOnlyHint: true, openWorldHint: false },
      async handler(args) {
        const runId = args.run;
        if (typeof runId !== "string" || !runId) return { ok: false, message: `${names.getRun} needs {"run": "<run id>"}, the run field of an execute answer` };
        const view = runView(workbench.store, runId, maxTokens);
        if (!view) return { ok: false, message: `there is no run ${runId}; the id is the "run" field of an execute answer` };
        return { ok: true, value: view, failed: false };
      },
    },
  ];
}
