/**
 * TypeScript declarations generated from the spec: for the search tool's
 * `declaration(id)` (what a model needs to call one operation right) and for
 * the editor's `.d.ts` (completion of `apis.<name>.<operation>(` with every
 * parameter and body field, and their docs). Component schemas become named
 * interfaces (type-names.ts), so recursion is just a name and the output stays
 * small. Types say what the request validator accepts: arguments and bodies
 * read schemas in the request direction (a required readOnly property is
 * optional), responses in the response direction.
 */
import type { Artifact, JsonSchema, Operation, Parameter } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { schemaRefName } from "../../../shared/schema-expand.ts";
import { typeNamesFor, type Direction, type TypeNames } from "./type-names.ts";

const MAX_DEPTH = 12;

export interface TsContext {
  names: TypeNames;
  direction: Direction;
  /** Component types referenced so far, by type name (to emit their declarations). */
  referenced: Map<string, { schema: string; direction: Direction }>;
  /** Prefix for component type names, e.g. `petstore.` inside the editor's .d.ts. */
  namespace?: string;
}

export function typeContext(artifact: Artifact, direction: Direction, namespace?: string): TsContext {
  return { names: typeNamesFor(artifact.schemas), direction, referenced: new Map(), ...(namespace ? { namespace } : {}) };
}

/** The type name of a component schema in the context's direction, noted as referenced. */
function componentType(schema: string, ctx: TsContext): string {
  const direction = ctx.names.hasRequestVariant(schema) ? ctx.direction : "response";
  const name = ctx.names.of(schema, direction);
  if (!ctx.referenced.has(name)) ctx.referenced.set(name, { schema, direction });
  return `${ctx.namespace ?? ""}${name}`;
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
    return name ? componentType(name, ctx) : "unknown";
  }
  if (typeof schema.$circular === "string") return componentType(schema.$circular, ctx);
  const nullable = schema.nullable === true ? " | null" : "";
  if (Array.isArray(schema.enum)) return literalUnion([...schema.enum, ...(nullable ? [null] : [])]);
  if (schema.const !== undefined) return literalUnion([schema.const, ...(nullable ? [null] : [])]);
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

/** `"a" | "b" | null`, each value once. */
function literalUnion(values: JsonValue[]): string {
  const literals = [...new Set(values.map((v) => JSON.stringify(v)))];
  return literals.length ? literals.join(" | ") : "never";
}

function objectType(schema: Record<string, JsonValue>, ctx: TsContext, depth: number, indent: string): string {
  const props = isObj(schema.properties) ? schema.properties : {};
  // As the validator reads it: a request need not carry a readOnly property, a response need not carry a writeOnly one.
  const hidden = ctx.direction === "request" ? "readOnly" : "writeOnly";
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string" && !(isObj(props[r]) && props[r][hidden] === true)) : []);
  const inner = `${indent}  `;
  const types: string[] = [];
  const lines = Object.entries(props).map(([name, prop]) => {
    const doc = isObj(prop) ? docComment(prop.description, prop, inner) : "";
    const type = schemaType(prop, ctx, depth + 1, inner);
    types.push(type);
    return `${doc}${inner}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${type};`;
  });
  const extra = schema.additionalProperties;
  if (extra === true || isObj(extra)) {
    // An index signature must admit every named property's type (undefined too, for optional ones).
    const type = extra === true ? "unknown" : schemaType(extra, ctx, depth + 1, inner);
    const admitted = type === "unknown" || !types.length ? type : [...new Set([type, ...types, "undefined"])].join(" | ");
    lines.push(`${inner}[key: string]: ${admitted};`);
  }
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
    if (schema.readOnly === true) lines.push("Read-only: set by the server, never required in a request.");
    if (schema.writeOnly === true) lines.push("Write-only: sent, never returned.");
    if (schema.deprecated === true) lines.push("@deprecated");
  }
  if (!lines.length) return "";
  const safe = lines.map((l) => l.replace(/\*\//g, "*\\/"));
  return safe.length === 1 ? `${indent}/** ${safe[0]} */\n` : `${indent}/**\n${safe.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}

/** The argument object of `apis.<api>.<id>(args)`: parameters by name, plus `body`. */
export function argumentsType(op: Operation, context: TsContext, indent = ""): string {
  const ctx: TsContext = { ...context, direction: "request" };
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
export function responseType(op: Operation, context: TsContext, indent = ""): string {
  const ctx: TsContext = { ...context, direction: "response" };
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

/** One operation's declaration plus the types it uses (transitively), for the search tool. */
export function operationDeclaration(api: string, op: Operation, artifact: Artifact, maxInterfaces = 25): string {
  const ctx = typeContext(artifact, "request");
  const signature = `${operationDoc(op)}declare function ${op.id}(args: ${argumentsType(op, ctx)}): Promise<{ status: number; headers: Record<string, string>; body: ${responseType(op, ctx)} }>;`;
  const interfaces = componentInterfaces(artifact, ctx, maxInterfaces);
  return [`// apis.${api}.${op.id}`, signature, ...interfaces].join("\n\n");
}

/**
 * `interface Name {...}` for each referenced component, following references
 * breadth-first. Past `max`, the rest are declared `unknown` with the schema
 * name to ask for, so the text still type-checks as a whole.
 */
export function componentInterfaces(artifact: Artifact, ctx: TsContext, max: number): string[] {
  const out: string[] = [];
  const done = new Set<string>();
  for (const [name, { schema: schemaName, direction }] of ctx.referenced) {
    // The map grows while we iterate: Map iteration visits entries added later, breadth-first.
    if (out.length >= max) break;
    done.add(name);
    const schema = artifact.schemas[schemaName] as JsonSchema | undefined;
    out.push(declareComponent(name, schema, { ...ctx, direction }, ""));
  }
  const rest = [...ctx.referenced].filter(([name]) => !done.has(name));
  if (rest.length) {
    out.push(`// ${rest.length} more types used here, not shown: read one with specs.<api>.schema(name), name in quotes below\n${rest.map(([name, { schema }]) => `type ${name} = unknown; // ${JSON.stringify(schema)}`).join("\n")}`);
  }
  return out;
}

/** One component's declaration: an interface when it is one object, else a type alias. */
export function declareComponent(name: string, schema: JsonSchema | undefined, ctx: TsContext, indent: string): string {
  const body = schemaType(schema ?? true, ctx, 0, indent);
  // Only a schema with a request variant is declared in the request direction (see componentType).
  const description = [ctx.direction === "request" ? "As sent in a request: read-only properties are optional." : "", typeof schema?.description === "string" ? schema.description.trim() : ""];
  const doc = docComment(description.filter(Boolean).join("\n"), undefined, indent);
  return schema && isPlainObject(schema) && body.startsWith("{") ? `${doc}${indent}interface ${name} ${body}` : `${doc}${indent}type ${name} = ${body};`;
}

/** A schema that schemaType renders as one object literal, which can be an interface (nicer hovers than a type alias). */
function isPlainObject(schema: JsonSchema): boolean {
  if (schema.$ref !== undefined || schema.enum !== undefined || schema.const !== undefined || schema.nullable === true) return false;
  if (schema.allOf !== undefined || schema.oneOf !== undefined || schema.anyOf !== undefined) return false;
  return schema.type === "object" || (schema.type === undefined && typeof schema.properties === "object");
}
