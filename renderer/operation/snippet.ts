/**
 * "Use in program": a typed call to one operation, with its required
 * parameters and a body taken from the spec's example or built from the
 * required fields, ready to edit. Optional parameters are listed in a comment.
 */
import type { JsonSchema, Operation } from "../../shared/artifact.ts";
import type { JsonValue } from "../../shared/json.ts";
import { isSchemaObject, refNameOf } from "./schema-summary.ts";

type LoadSchema = (name: string) => Promise<JsonSchema | null>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Returns the snippet for a given program text (so the result variable gets a name the program does not use yet). */
export async function buildCallSnippet(apiName: string, op: Operation, load: LoadSchema): Promise<(code: string) => string> {
  const args: string[] = [];
  for (const p of op.parameters.filter((p) => p.required)) {
    args.push(`${key(p.name)}: ${literal(p.example ?? (await placeholder(p.schema, load, 0)))}`);
  }
  if (op.requestBody) {
    const media = op.requestBody.content["application/json"] ?? Object.values(op.requestBody.content)[0];
    const example = media?.example ?? Object.values(media?.examples ?? {})[0]?.value;
    const body = example !== undefined ? example : await placeholder(media?.schema, load, 0);
    args.push(`body: ${literal(body, "  ")}`);
  }
  const optional = op.parameters.filter((p) => !p.required).map((p) => p.name);
  const call = `await apis.${apiName}.${op.id}(${args.length ? `{ ${args.join(", ")} }` : ""})`;
  const lines = [`// ${op.method.toUpperCase()} ${op.path}${op.summary ? `: ${op.summary}` : ""}`];
  if (optional.length) lines.push(`// optional: ${optional.slice(0, 12).join(", ")}${optional.length > 12 ? ", …" : ""}`);
  return (code) => [...lines, `const ${freshName(`${op.id}Res`, code)} = ${call};`].join("\n");
}

export function freshName(base: string, code: string): string {
  const used = (name: string) => new RegExp(`\\b(?:const|let|var)\\s+${name.replace(/\$/g, "\\$")}\\b`).test(code);
  if (!used(base)) return base;
  let n = 2;
  while (used(`${base}${n}`)) n++;
  return `${base}${n}`;
}

function key(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

/** A value of the schema's shape: its example or default when given, else an empty value of its type. */
async function placeholder(schema: JsonValue | undefined, load: LoadSchema, depth: number): Promise<JsonValue> {
  if (!isSchemaObject(schema) || depth > 3) return "";
  const ref = refNameOf(schema);
  if (ref) {
    const target = await load(ref).catch(() => null);
    return target ? placeholder(target, load, depth + 1) : {};
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0]!;
  const all = Array.isArray(schema.allOf) ? schema.allOf : undefined;
  if (all) {
    const parts = await Promise.all(all.map((s) => placeholder(s, load, depth + 1)));
    return Object.assign({}, ...parts.filter(isSchemaObject)) as JsonValue;
  }
  const first = (Array.isArray(schema.oneOf) && schema.oneOf[0]) || (Array.isArray(schema.anyOf) && schema.anyOf[0]);
  if (first) return placeholder(first, load, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "integer" || type === "number") return 0;
  if (type === "boolean") return false;
  if (type === "array") return [];
  if (type === "object" || isSchemaObject(schema.properties)) {
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
    const props = isSchemaObject(schema.properties) ? schema.properties : {};
    const out: Record<string, JsonValue> = {};
    for (const name of required) out[name] = await placeholder(props[name], load, depth + 1);
    return out;
  }
  return "";
}

/** JavaScript source for a JSON value: unquoted keys where possible, one line when short. */
export function literal(value: JsonValue, indent = ""): string {
  const oneLine = toJs(value, null);
  if (oneLine.length <= 80) return oneLine;
  return toJs(value, indent);
}

function toJs(value: JsonValue, indent: string | null): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = indent === null ? null : `${indent}  `;
  const sep = inner === null ? ", " : `,\n${inner}`;
  const open = (b: string) => (inner === null ? b : `${b}\n${inner}`);
  const close = (b: string) => (inner === null ? b : `\n${indent}${b}`);
  if (Array.isArray(value)) return value.length ? `${open("[")}${value.map((v) => toJs(v, inner)).join(sep)}${close("]")}` : "[]";
  const entries = Object.entries(value);
  if (!entries.length) return "{}";
  const body = entries.map(([k, v]) => `${key(k)}: ${toJs(v, inner)}`).join(sep);
  return inner === null ? `{ ${body} }` : `${open("{")}${body}${close("}")}`;
}
