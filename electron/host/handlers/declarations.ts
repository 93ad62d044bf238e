/**
 * The editor's `.d.ts` (`apis.declarations`): every registered API's
 * operations typed as `apis.<name>.<id>(args)`, component schemas as
 * interfaces in a namespace per API (so recursion is a name and GitHub's
 * 1,100 operations stay a few MB), plus `vault`, `context` and `console`.
 * Built from the same pieces as the search tool's `declaration(id)`, so the
 * editor and the model see one truth. Cached per set of (name, spec hash,
 * config), since Monaco asks again after every registry change.
 */
import type { Artifact, Operation } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { CONSOLE_DECLARATION } from "../../../shared/program-globals.ts";
import { argumentsType, declareComponent, docComment, operationDoc, responseType, typeContext, type TsContext } from "../tools/typescript.ts";

export interface DeclaredApi {
  name: string;
  artifact: Artifact;
  /** `context.<name>`: the values the person set for programs. */
  context?: JsonValue;
}

export interface DeclaredVaultItem {
  name: string;
  fields: string[];
}

const PRELUDE = `/** What every call resolves to; an HTTP error status is a normal return, not a throw. */
interface WorkbenchResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
}
/** A raw call to any operation of the API, matched by method and path. */
interface WorkbenchRequest {
  method: "GET" | "PUT" | "POST" | "DELETE" | "OPTIONS" | "HEAD" | "PATCH" | "TRACE" | Lowercase<"GET" | "PUT" | "POST" | "DELETE" | "OPTIONS" | "HEAD" | "PATCH" | "TRACE">;
  /** The path as sent, e.g. "/pets/42" (relative to the API's base URL). */
  path: string;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
  body?: unknown;
  contentType?: string;
}
/** Errors a program may catch from a call (error.name). */
type WorkbenchCallError = "CallRejected" | "CallDenied" | "CallFailed" | "VaultDenied";
${CONSOLE_DECLARATION}`;

export function buildEditorDeclarations(apis: DeclaredApi[], vaultItems: DeclaredVaultItem[]): string {
  const parts = [PRELUDE];
  const members: string[] = [];
  for (const api of apis) {
    const { namespace, member } = declareApi(api);
    parts.push(namespace);
    members.push(member);
  }
  const call = `  /** Any operation by name, as "<api>.<operationId>": apis.call("petstore.listPets", args) is apis.petstore.listPets(args). */\n  call(operation: \`\${string}.\${string}\`, args?: Record<string, unknown>): Promise<WorkbenchResponse>;`;
  parts.push(`/** The registered APIs: one method per operation, plus request() for any call by method and path. */\ndeclare const apis: {\n${[...members, call].join("\n")}\n};\n`);
  parts.push(declareVault(vaultItems));
  parts.push(declareContext(apis));
  return parts.join("\n");
}

function declareApi(api: DeclaredApi): { namespace: string; member: string } {
  const ns = api.name;
  const ctx = typeContext(api.artifact, "request", `${ns}.`);
  const methods = api.artifact.operations.map((op) => declareOperation(op, ctx));
  const interfaces = declareSchemas(api.artifact, `${ns}.`);
  const title = `${api.artifact.info.title}${api.artifact.info.version ? ` ${api.artifact.info.version}` : ""}`;
  const namespace = `/** Types of ${title} (apis.${ns}). */\ndeclare namespace ${ns} {\n${interfaces.join("\n")}\n}\n`;
  const member = `${docComment(`${title}: ${api.artifact.operations.length} operations`, undefined, "  ")}  ${ns}: {\n${methods.join("\n")}\n    /** Any operation of ${ns} by method and path. */\n    request(request: WorkbenchRequest): Promise<WorkbenchResponse>;\n  };`;
  return { namespace, member };
}

function declareOperation(op: Operation, ctx: TsContext): string {
  const indent = "    ";
  const args = argumentsType(op, ctx, indent);
  const optional = !op.parameters.some((p) => p.required) && !op.requestBody?.required;
  return `${operationDoc(op, indent)}${indent}${op.id}(args${optional ? "?" : ""}: ${args}): Promise<WorkbenchResponse<${responseType(op, ctx, indent)}>>;`;
}

/**
 * Every component schema as `interface Name {...}` or `type Name = ...`, inside
 * the API's namespace; a schema that reads differently in requests also as
 * `NameInput` (type-names.ts).
 */
function declareSchemas(artifact: Artifact, namespace: string): string[] {
  const ctx = typeContext(artifact, "response", namespace);
  const out: string[] = [];
  for (const [name, schema] of Object.entries(artifact.schemas)) {
    out.push(declareComponent(ctx.names.of(name, "response"), schema, { ...ctx, direction: "response" }, "  "));
    if (ctx.names.hasRequestVariant(name)) out.push(declareComponent(ctx.names.of(name, "request"), schema, { ...ctx, direction: "request" }, "  "));
  }
  return out;
}

function declareVault(items: DeclaredVaultItem[]): string {
  const lines = items.map((item) => `  ${key(item.name)}: {\n${item.fields.map((f) => `    /** A reference (⟦vault:${item.name}/${f}⟧), never the secret: the host substitutes it for APIs the item allows. */\n    readonly ${key(f)}: string;`).join("\n")}\n  };`);
  return `/** Vault references by item and field. Put one where the secret goes; the program never sees the value. */\ndeclare const vault: {\n${lines.join("\n")}\n};\n`;
}

function declareContext(apis: DeclaredApi[]): string {
  const lines = apis.map((api) => `  ${key(api.name)}: ${jsonType(api.context ?? {}, "  ")};`);
  return `/** Values the person set for each API (never secrets). */\ndeclare const context: {\n${lines.join("\n")}\n};\n`;
}

/** The literal type of a JSON value, so the editor completes \`context.<api>.<key>\`. */
function jsonType(value: JsonValue, indent: string): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length ? `Array<${[...new Set(value.map((v) => jsonType(v, indent)))].join(" | ")}>` : "unknown[]";
  if (typeof value === "object") {
    const inner = `${indent}  `;
    const entries = Object.entries(value).map(([k, v]) => `${inner}readonly ${key(k)}: ${jsonType(v, inner)};`);
    return entries.length ? `{\n${entries.join("\n")}\n${indent}}` : "{}";
  }
  return typeof value;
}

function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}
