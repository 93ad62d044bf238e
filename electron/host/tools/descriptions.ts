/**
 * Tool descriptions, built from the registry each time tools are listed. They
 * must teach a model the whole surface (the API list, the call shapes, the
 * envelope, the errors it can catch, a worked example) in at most 1,500 tokens
 * however many operations the specs hold: the specs are searched, never pasted.
 */
import type { Artifact } from "../../../shared/artifact.ts";
import type { RunPolicy } from "../../../shared/runs.ts";
import { CHARS_PER_TOKEN } from "./truncate.ts";

export const MAX_DESCRIPTION_TOKENS = 1_500;
const MAX_CHARS = MAX_DESCRIPTION_TOKENS * CHARS_PER_TOKEN;

export interface DescribedApi {
  name: string;
  artifact: Artifact;
}

export const DEFAULT_TOOL_NAMES = {
  search: "search_apis",
  execute: "execute_api_code",
  mutations: "execute_api_mutations",
  getRun: "get_code_run",
} as const;
export type ToolNames = { [K in keyof typeof DEFAULT_TOOL_NAMES]: string };

function oneLine(text: string | undefined, max: number): string {
  const line = (text ?? "").replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One line per API: name, title, size, tags (truncated); the list itself capped to its share of the budget. */
export function apiList(apis: DescribedApi[], budget: number): string {
  if (!apis.length) return "No APIs are registered yet; a person adds them in the workbench (or `workbench api add`).";
  const lines: string[] = [];
  let used = 0;
  for (const [i, { name, artifact }] of apis.entries()) {
    const tags = artifact.tags.length ? artifact.tags.map((t) => t.name) : [...new Set(artifact.operations.flatMap((op) => op.tags))];
    const shownTags = tags.slice(0, 8).join(", ") + (tags.length > 8 ? ` (+${tags.length - 8} more)` : "");
    const line = `- ${name}: ${oneLine(artifact.info.title, 60)}${artifact.info.version ? ` ${oneLine(artifact.info.version, 12)}` : ""}, ${artifact.operations.length} operations${shownTags ? `; tags: ${shownTags}` : ""}`;
    if (used + line.length > budget) {
      lines.push(`- … and ${apis.length - i} more APIs: ${apis.slice(i, i + 20).map((a) => a.name).join(", ")}${apis.length - i > 20 ? ", …" : ""}`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join("\n");
}

function exampleApi(apis: DescribedApi[]): { name: string; listId: string; findWord: string } {
  const first = apis[0];
  if (!first) return { name: "petstore", listId: "listPets", findWord: "pet" };
  const list = first.artifact.operations.find((op) => op.method === "get" && !op.path.includes("{")) ?? first.artifact.operations[0];
  return { name: first.name, listId: list?.id ?? "listItems", findWord: list?.tags[0] ?? list?.path.split("/").filter(Boolean)[0] ?? "item" };
}

export function searchDescription(apis: DescribedApi[]): string {
  const ex = exampleApi(apis);
  const head = `Search the OpenAPI specs of the registered APIs by running JavaScript. Submit an async arrow function; it runs in a sandbox whose one global, \`specs\`, is keyed by API name. Only what you return comes back, so return just what you need.

specs.<api> has:
- paths[path][method]: {operationId, summary, description, tags, deprecated, parameters, requestBody, responses, security}; $refs resolved, cycles shown as {"$circular": "Name"}
- operations: [{id, method, path, summary, tags, parameters, deprecated}], compact and cheapest to scan (parameters: names, "?" when optional, "body" for a request body)
- find(text, limit?): operations ranked like a search engine (any words, synonyms, plurals), best first: find("list pull requests for a repo", 5)
- operation(id): one operation in full; schema(name); schemaNames; components.schemas
- declaration(id): the TypeScript signature of apis.<api>.<id>(), to call it right the first time
- info: title, version, servers, tags, security schemes

APIs:
`;
  const tail = `

Examples:
async () => specs.${ex.name}.find("${ex.findWord}", 10)
async () => specs.${ex.name}.operations.filter((o) => o.method === "GET").map((o) => \`\${o.id}: \${o.path}\`)
async () => specs.${ex.name}.declaration("${ex.listId}")`;
  return head + apiList(apis, MAX_CHARS - head.length - tail.length - 50) + tail;
}

/** The tool names, and which tools the host offers (a description never points to a tool that is not there). */
export interface OfferedTools {
  names: ToolNames;
  offered(role: keyof ToolNames): boolean;
}

const ALL_TOOLS: OfferedTools = { names: DEFAULT_TOOL_NAMES, offered: () => true };

export function executeDescription(apis: DescribedApi[], policy: RunPolicy, tools: OfferedTools = ALL_TOOLS): string {
  const { names } = tools;
  const ex = exampleApi(apis);
  const outcome = tools.offered("getRun") ? `you are notified with the outcome; ${names.getRun}({run}) reads it whole` : "you are notified with the outcome";
  const policyText =
    policy === "read_only"
      ? `This tool is read-only: only GET, HEAD and OPTIONS calls are sent; any other call is refused with CallRejected and never sent.${tools.offered("mutations") ? ` For writes use ${names.mutations}.` : ""}`
      : `Writes (and calls carrying a vault reference) wait for a person, as a plan: at the first one the program runs on to its end without sending writes (each returns a forecast shaped by the spec, with \`response.forecast === true\`), and the tool answers "pending" with the plan (how many writes to which operations). Nothing is sent until a person approves; the program then runs again from the top with real answers (saved reads return their results, so keep it deterministic), each write checked against the plan, and ${outcome}. A denied write throws CallDenied, which you may catch.`;
  const head = `Run a JavaScript program that calls the registered APIs. Submit an async arrow function (or a function body); return a small, useful result. TypeScript types are allowed and stripped.${tools.offered("search") ? ` Find operations first with ${names.search}.` : ""}

In the program:
- apis.<api>.<operationId>({...parameters, body}), apis.call("<api>.<operationId>", args) or apis.<api>.request({method, path, query, headers, body, contentType}) resolve to {status, headers, body}. An HTTP error status is a normal return, not a throw. Calls in Promise.all run concurrently.
- Errors you may catch (error.name): CallRejected (not sent: invalid arguments, unknown operation with the nearest ones named, or policy), CallDenied (a person said no), CallFailed (sent, no usable answer: network, timeout, too large), VaultDenied.
- vault.<item>.<field> is a reference string, never the secret: put it where the secret goes and the host substitutes it. context.<api> holds values the person set.
- console.log lines come back in logs. Date.now() and Math.random() are fixed per run; there is no fetch, no timers, no modules.
${policyText}

The answer is JSON in this order: {run, status, calls: [{index, api, operation, status, duration_ms, decision}], logs, then result | error {reason, name, message} | pending}. A long answer is cut to valid JSON with a "truncated" note.

APIs:
`;
  const tail = `

Example:
async () => {
  const { status, body } = await apis.${ex.name}.${ex.listId}({});
  if (status !== 200) return { status, body };
  return Array.isArray(body) ? body.slice(0, 5) : body;
}`;
  return head + apiList(apis, MAX_CHARS - head.length - tail.length - 50) + tail;
}

export function getRunDescription(): string {
  return "Read the outcome of a code run by its id (the `run` field of an execute answer): the same envelope, with status completed, failed or pending. Use it after a pending write, once you are notified that the run finished.";
}
