/**
 * TypeScript declarations generated from the spec: for the search tool's
 * `declaration(id)` (what a model needs to call one operation right) and for
 * the editor's `.d.ts` (completion of `apis.<name>.<operation>(` with every
 * parameter and body field, and their docs). Component schemas become named
 * interfaces, so recursion is just a name and the output stays small.
 */
import type { Artifact, JsonSchema, Operation, Parameter } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { schemaRefName } from "../../../shared/schema-expand.ts";

const MAX_DEPTH = 12;

/** `pull-request` → `PullRequest`; always a valid identifier. */
export function typeName(schemaName: string): string {
  const words = schemaName.split(/[^A-Za-z0-9_$]+/).filter(Boolean);
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("") || "Schema";
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

export interface TsContext {
  /** Component schema names referenced so far (to emit their interfaces). */
  referenced: Set<string>;
  /** Prefix for component type names, e.g. `petstore.` inside the editor's .d.ts. */
  namespace?: string;
}

function isObj(value: JsonValue | undefined): value is Record<string, JsonValue> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** The TypeScript type of a schema. */
export function schemaType(schema: JsonValue | undefined, ctx: TsContext, depth = 0, indent = ""): string {
  if (schema === true || schema === undefined || schema === null) return "unknown";
  if (schema === false) return "never";
  if (!isObj(schema) || depth > MAX_DEPTH) return "unknown";
  if (typeof schema.$ref === "string") {
    const name = schemaRefName(schema.$ref);
    if (!name) return "unknown";
    ctx.referenced.add(name);
    return `${ctx.namespace ?? ""}${typeName(name)}`;
  }
  if (typeof schema.$circular === "string") return `${ctx.namespace ?? ""}${typeName(schema.$circular)}`;
  const nullable = schema.nullable === true ? " | null" : "";
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ") + nullable;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  for (const [key, join] of [["allOf", " & "], ["oneOf", " | "], ["anyOf", " | "]] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length) {
      const own = isObj(schema.properties) ? [objectType(schema, ctx, depth, indent)] : [];
      const parts = [...list.map((s) => schemaType(s, ctx, depth + 1, indent)), ...own];
      return `${parts.length > 1 ? `(${parts.join(join)})` : parts[0]}${nullable}`;
    }
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    return type.map((t) => schemaType({ ...schema, type: t }, ctx, depth + 1, indent)).join(" | ");
  }
  switch (type) {
    case "string":
      return `string${nullable}`;
    case "integer":
    case "number":
      return `number${nullable}`;
    case "boolean":
      return `boolean${nullable}`;
    case "null":
      return "null";
    case "array": {
      const item = schemaType(schema.items, ctx, depth + 1, indent);
      return `${/[|& ]/.test(item) ? `Array<${item}>` : `${item}[]`}${nullable}`;
    }
    case "object":
      return objectType(schema, ctx, depth, indent) + nullable;
    default:
      if (isObj(schema.properties)) return objectType(schema, ctx, depth, indent) + nullable;
      return "unknown";
  }
}

function objectType(schema: Record<string, JsonValue>, ctx: TsContext, depth: number, indent: string): string {
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const inner = `${indent}  `;
  const lines = Object.entries(props).map(([name, prop]) => {
    const doc = isObj(prop) ? docComment(prop.description, prop, inner) : "";
    return `${doc}${inner}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${schemaType(prop, ctx, depth + 1, inner)};`;
  });
  const extra = schema.additionalProperties;
  if (extra === true || isObj(extra)) lines.push(`${inner}[key: string]: ${extra === true ? "unknown" : schemaType(extra, ctx, depth + 1, inner)};`);
  if (!lines.length) return "Record<string, unknown>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** A JSDoc block from a description plus the facts a caller needs (format, default, example). */
export function docComment(description: JsonValue | undefined, schema: Record<string, JsonValue> | undefined, indent: string): string {
  const lines: string[] = [];
  if (typeof description === "string" && description.trim()) lines.push(...description.trim().split("\n").slice(0, 6));
  if (schema) {
    if (typeof schema.format === "string") lines.push(`@format ${schema.format}`);
    if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
    if (schema.example !== undefined) lines.push(`@example ${JSON.stringify(schema.example).slice(0, 120)}`);
    if (schema.deprecated === true) lines.push("@deprecated");
  }
  if (!lines.length) return "";
  const safe = lines.map((l) => l.replace(/\*\//g, "*\\/"));
  return safe.length === 1 ? `${indent}/** ${safe[0]} */\n` : `${indent}/**\n${safe.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}

/** The argument object of `apis.<api>.<id>(args)`: parameters by name, plus `body`. */
export function argumentsType(op: Operation, ctx: TsContext, indent = ""): string {
  const inner = `${indent}  `;
  const lines = op.parameters.map((p: Parameter) => {
    const doc = docComment(p.description, { ...(p.schema ?? {}), ...(p.deprecated ? { deprecated: true } : {}) }, inner);
    const schema = p.schema ?? (p.content ? Object.values(p.content)[0]?.schema : undefined);
    return `${doc}${inner}${propertyKey(p.name)}${p.required ? "" : "?"}: ${schemaType(schema, ctx, 1, inner)};`;
  });
  if (op.requestBody) {
    const [mediaType, media] = Object.entries(op.requestBody.content)[0] ?? [];
    const doc = docComment(op.requestBody.description ?? (mediaType ? `Request body (${mediaType})` : undefined), undefined, inner);
    lines.push(`${doc}${inner}body${op.requestBody.required ? "" : "?"}: ${schemaType(media?.schema, ctx, 1, inner)};`);
  }
  return lines.length ? `{\n${lines.join("\n")}\n${indent}}` : "{}";
}

/** The body type of the operation's success response(s). */
export function responseType(op: Operation, ctx: TsContext, indent = ""): string {
  const success = Object.entries(op.responses).filter(([code]) => /^2/.test(code));
  const types = success.map(([, r]) => {
    const media = r.content ? (r.content["application/json"] ?? Object.values(r.content)[0]) : undefined;
    return media ? schemaType(media.schema, ctx, 1, indent) : "null";
  });
  const unique = [...new Set(types)];
  return unique.length ? unique.join(" | ") : "unknown";
}

export function operationDoc(op: Operation, indent = ""): string {
  const lines = [`${op.method.toUpperCase()} ${op.path}`];
  if (op.summary) lines.unshift(op.summary);
  if (op.description && op.description !== op.summary) lines.push("", ...op.description.trim().split("\n").slice(0, 8));
  const comment = docComment(lines.join("\n"), op.deprecated ? { deprecated: true } : undefined, indent);
  return comment;
}

/** One operation's declaration plus the interfaces it uses (transitively), for the search tool. */
export function operationDeclaration(api: string, op: Operation, artifact: Artifact, maxInterfaces = 25): string {
  const ctx: TsContext = { referenced: new Set() };
  const signature = `${operationDoc(op)}function ${op.id}(args: ${argumentsType(op, ctx)}): Promise<{ status: number; headers: Record<string, string>; body: ${responseType(op, ctx)} }>;`;
  const interfaces = componentInterfaces(artifact, ctx, maxInterfaces);
  return [`// apis.${api}.${op.id}`, signature, ...interfaces].join("\n\n");
}

/** `interface Name {...}` for each referenced component, following references breadth-first. */
export function componentInterfaces(artifact: Artifact, ctx: TsContext, max: number): string[] {
  const out: string[] = [];
  const done = new Set<string>();
  const queue = [...ctx.referenced];
  while (queue.length && out.length < max) {
    const name = queue.shift()!;
    if (done.has(name)) continue;
    done.add(name);
    const schema = artifact.schemas[name] as JsonSchema | undefined;
    const before = new Set(ctx.referenced);
    const body = schemaType(schema ?? true, ctx, 0, "");
    const doc = docComment(schema?.description, undefined, "");
    out.push(body.startsWith("{") ? `${doc}interface ${typeName(name)} ${body}` : `${doc}type ${typeName(name)} = ${body};`);
    for (const n of ctx.referenced) if (!before.has(n)) queue.push(n);
  }
  if (queue.some((n) => !done.has(n))) out.push(`// … ${new Set(queue.filter((n) => !done.has(n))).size} more referenced types not shown; ask for one with specs.<api>.schema(name)`);
  return out;
}
