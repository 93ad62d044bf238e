/** One-line descriptions of schemas for trees and tables: `string · date-time`, `Pet[]`, `one of 3`. */
import type { JsonValue } from "../../shared/json.ts";
import { schemaRefName } from "../../shared/schema-expand.ts";

export type SchemaObject = { [key: string]: JsonValue };

export function isSchemaObject(value: JsonValue | undefined): value is SchemaObject {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

export function refNameOf(schema: JsonValue | undefined): string | undefined {
  return isSchemaObject(schema) && typeof schema.$ref === "string" ? (schemaRefName(schema.$ref) ?? schema.$ref) : undefined;
}

export function typeSummary(schema: JsonValue | undefined): string {
  if (schema === true || schema === undefined) return "any";
  if (schema === false) return "never";
  if (!isSchemaObject(schema)) return "any";
  const ref = refNameOf(schema);
  if (ref) return ref;
  if (typeof schema.$circular === "string") return `${schema.$circular} (circular)`;
  for (const [key, word] of [["oneOf", "one of"], ["anyOf", "any of"], ["allOf", "all of"]] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length) {
      const parts = list.map((s) => typeSummary(s));
      return list.length <= 3 && parts.every((p) => p.length < 24) ? parts.join(key === "allOf" ? " & " : " | ") : `${word} ${list.length}`;
    }
  }
  const types = Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : typeof schema.type === "string" ? [schema.type] : [];
  const nullable = schema.nullable === true && !types.includes("null");
  let base: string;
  if (Array.isArray(schema.enum)) base = types[0] ? `${types.filter((t) => t !== "null").join(" | ")} enum` : "enum";
  else if (types.includes("array") || schema.items !== undefined) {
    const item = typeSummary(schema.items as JsonValue | undefined);
    base = /[ |&]/.test(item) ? `array of ${item}` : `${item}[]`;
    const others = types.filter((t) => t !== "array");
    if (others.length) base = [base, ...others].join(" | ");
  } else if (types.length) base = types.join(" | ");
  else if (isSchemaObject(schema.properties)) base = "object";
  else base = "any";
  if (typeof schema.format === "string") base += ` · ${schema.format}`;
  return nullable ? `${base} | null` : base;
}

/** Constraints worth showing beside a type. */
export function constraints(schema: SchemaObject): string[] {
  const out: string[] = [];
  const num = (k: string, label: string) => typeof schema[k] === "number" && out.push(`${label} ${String(schema[k])}`);
  num("minimum", "≥");
  num("maximum", "≤");
  num("exclusiveMinimum", ">");
  num("exclusiveMaximum", "<");
  num("minLength", "min length");
  num("maxLength", "max length");
  num("minItems", "min items");
  num("maxItems", "max items");
  if (typeof schema.pattern === "string") out.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  if (schema.readOnly === true) out.push("read-only");
  if (schema.writeOnly === true) out.push("write-only");
  return out;
}
