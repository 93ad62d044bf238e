/**
 * The code-mode tools as data: name, description (built from the registry at
 * the time they are listed), JSON input schema, annotations, and a handler.
 * The MCP server lists and calls these; any other host (an in-house agent
 * loop) can use them the same way. Names are configurable so a host can gate
 * on the name alone: the write-capable tool is the only one that can write;
 * and a host can offer a subset (no mutation tool for a read-only agent).
 * Programs run under the agent limits in force at each call (the settings,
 * then the process's flags); answers are cut to their result budget.
 */
import type { Envelope } from "../../../shared/envelope.ts";
import { AGENT_LIMIT_BOUNDS, checkLimit, type AgentLimits } from "../../../shared/limits.ts";
import type { RunSource } from "../../../shared/runs.ts";
import { runLimitsOf } from "../agent-limits.ts";
import { forAgent } from "../runs/envelope.ts";
import type { Workbench } from "../workbench.ts";
import { DEFAULT_TOOL_NAMES, executeDescription, getRunDescription, searchDescription, type DescribedApi, type ToolNames } from "./descriptions.ts";
import { runView } from "./run-view.ts";

const MAX_CODE_CHARS = 1024 * 1024;

/** A tool by what it does, whatever its name: the unit of `--tools`. */
export type ToolRole = keyof ToolNames;
export const TOOL_ROLES: readonly ToolRole[] = ["search", "execute", "mutations", "getRun"];

const ROLE_WORDS: Record<string, ToolRole> = { search: "search", execute: "execute", mutations: "mutations", "get-run": "getRun", get_run: "getRun", getRun: "getRun" };

/** `search,execute,get-run` → the roles, or what is wrong with the list. */
export function parseToolRoles(text: string): { ok: true; roles: ToolRole[] } | { ok: false; message: string } {
  const words = text.split(",").map((w) => w.trim()).filter(Boolean);
  const unknown = words.filter((w) => !Object.hasOwn(ROLE_WORDS, w));
  if (unknown.length) return { ok: false, message: `unknown tool ${unknown.map((w) => JSON.stringify(w)).join(", ")}; the tools are search, execute, mutations and get-run` };
  if (!words.length) return { ok: false, message: "name at least one tool: search, execute, mutations, get-run" };
  const roles = new Set(words.map((w) => ROLE_WORDS[w]!));
  return { ok: true, roles: TOOL_ROLES.filter((role) => roles.has(role)) };
}

/** The role's word on the command line. */
export function roleWord(role: ToolRole): string {
  return role === "getRun" ? "get-run" : role;
}

export interface ToolContext {
  /** Who calls: recorded as the run's source (an MCP client's name and version). */
  source: RunSource;
}

export type ToolAnswer =
  /** `value` is what the caller should see (the envelope, cut to the result budget); `envelope` the whole one, when a run was made. */
  | { ok: true; value: unknown; failed: boolean; envelope?: Envelope }
  /** The call could not start (missing or malformed arguments): nothing ran. */
  | { ok: false; message: string };

interface PropertySchema {
  type: string;
  description: string;
  minimum?: number;
  maximum?: number;
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, PropertySchema>; required: string[]; additionalProperties: false };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint?: boolean; openWorldHint: boolean };
  handler(args: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

export interface ToolOptions {
  names?: Partial<ToolNames>;
  /** The tools offered (default: all four, in their fixed order). */
  offer?: readonly ToolRole[];
  /** The limits of the next program, asked at each call (default: the workbench's agent limits). */
  limits?: () => AgentLimits;
}

export function toolNames(options: ToolOptions = {}): ToolNames {
  return { ...DEFAULT_TOOL_NAMES, ...options.names };
}

/** The offered tools, described from the APIs registered now. */
export async function toolDefinitions(workbench: Workbench, options: ToolOptions = {}): Promise<ToolDefinition[]> {
  await workbench.apis.refresh();
  return defineTools(workbench, workbench.apis.list().map((t) => ({ name: t.name, artifact: t.artifact })), options);
}

export function defineTools(workbench: Workbench, apis: DescribedApi[], options: ToolOptions = {}): ToolDefinition[] {
  const names = toolNames(options);
  const offered = new Set(options.offer ?? TOOL_ROLES);
  const limits = options.limits ?? (() => workbench.agentLimits.current());
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
  const answer = (envelope: Envelope, tokens: number): ToolAnswer => ({ ok: true, value: forAgent(envelope, tokens), failed: envelope.status === "failed", envelope });
  const execute = async (code: string, policy: "read_only" | "all", context: ToolContext) => {
    const now = limits();
    return answer(await workbench.execute({ code, policy, source: context.source, limits: runLimitsOf(now) }), now.maxResultTokens);
  };
  const tokenBound = AGENT_LIMIT_BOUNDS.maxResultTokens;
  const described = { offered: (role: ToolRole) => offered.has(role), names };
  const all: (ToolDefinition & { role: ToolRole })[] = [
    {
      role: "search",
      name: names.search,
      description: searchDescription(apis),
      inputSchema: codeSchema('An async arrow function over `specs`, e.g. async () => specs.petstore.find("pet", 10)'),
      annotations: { title: "Search the API specs", readOnlyHint: true, openWorldHint: false },
      async handler(args, context) {
        const code = program(names.search, args);
        if (typeof code !== "string") return code;
        const now = limits();
        return answer(await workbench.search(code, context.source, runLimitsOf(now)), now.maxResultTokens);
      },
    },
    {
      role: "execute",
      name: names.execute,
      description: executeDescription(apis, "read_only", described),
      inputSchema: codeSchema("An async arrow function (or a function body) that calls apis.<api>.<operation>(...) and returns a small result"),
      annotations: { title: "Run a read-only program", readOnlyHint: true, openWorldHint: true },
      async handler(args, context) {
        const code = program(names.execute, args);
        return typeof code === "string" ? execute(code, "read_only", context) : code;
      },
    },
    {
      role: "mutations",
      name: names.mutations,
      description: executeDescription(apis, "all", described),
      inputSchema: codeSchema("An async arrow function (or a function body); its writes wait for a person's approval"),
      annotations: { title: "Run a program that may write (approved by a person)", readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      async handler(args, context) {
        const code = program(names.mutations, args);
        return typeof code === "string" ? execute(code, "all", context) : code;
      },
    },
    {
      role: "getRun",
      name: names.getRun,
      description: getRunDescription(),
      inputSchema: {
        type: "object",
        properties: {
          run: { type: "string", description: "The run id, e.g. run_abc123" },
          max_tokens: { type: "integer", description: "Cut the answer to about this many tokens (default: the usual answer size); ask for more to read what a truncated answer left out", minimum: tokenBound.min, maximum: tokenBound.max },
        },
        required: ["run"],
        additionalProperties: false,
      },
      annotations: { title: "Read a code run", readOnlyHint: true, openWorldHint: false },
      async handler(args) {
        const runId = args.run;
        if (typeof runId !== "string" || !runId) return { ok: false, message: `${names.getRun} needs {"run": "<run id>"}, the run field of an execute answer` };
        let tokens = limits().maxResultTokens;
        if (args.max_tokens !== undefined) {
          const checked = checkLimit(tokenBound, args.max_tokens);
          if (!checked.ok) return { ok: false, message: `max_tokens ${checked.message}` };
          tokens = checked.value;
        }
        const view = runView(workbench.store, runId, tokens);
        if (!view) return { ok: false, message: `there is no run ${runId}; the id is the "run" field of an execute answer` };
        return { ok: true, value: view, failed: false };
      },
    },
  ];
  return all.filter((tool) => offered.has(tool.role)).map(({ role: _role, ...tool }) => tool);
}
