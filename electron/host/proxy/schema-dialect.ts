/**
 * OpenAPI schemas are not quite JSON Schema. 3.0 uses a draft-04 dialect with
 * `nullable`, boolean `exclusiveMinimum`, and `readOnly` properties listed as
 * required even in request bodies; 3.1 is JSON Schema 2020-12. This turns an
 * artifact schema into what ajv compiles for the given dialect and direction,
 * and points component refs at one shared components schema so recursion is
 * ajv's business, not ours.
 */
import { SCHEMA_REF_PREFIX, type JsonSchema } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from "../../../shared/schema-expand.ts";

export type Dialect = "openapi-3.0" | "openapi-3.1";
export type Direction = "request" | "response";

export interface ConvertOptions {
  dialect: Dialect;
  direction: Direction;
  /** Absolute id of the schema holding every component under `$defs`. */
  componentsId: string;
}

/** Draft-07 (used for 3.0) knows `definitions`; 2020-12 (3.1) knows `$defs`. */
function defsKey(dialect: Dialect): string {
  return dialect === "openapi-3.0" ? "definitions" : "$defs";
}

export function componentRef(name: string, opts: Pick<ConvertOptions, "componentsId" | "dialect">): string {
  const token = name.replace(/~/g, "~0").replace(/\//g, "~1");
  return `${opts.componentsId}#/${defsKey(opts.dialect)}/${encodeURIComponent(token)}`;
}

/** Converts one schema (and everything nested in it, refs left as refs). */
export function convertSchema(schema: JsonValue, opts: ConvertOptions, depth = 0): JsonValue {
  if (depth > 200 || schema === null || typeof schema !== "object") return schema;
  if (Array.isArray(schema)) return schema.map((s) => convertSchema(s, opts, depth + 1));
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref" && typeof value === "string") {
      out.$ref = value.startsWith(SCHEMA_REF_PREFIX) ? componentRef(value.slice(SCHEMA_REF_PREFIX.length), opts) : value;
    } else if (SUBSCHEMA_MAP_KEYWORDS.has(key) && value && typeof value === "object" && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convertSchema(v, opts, depth + 1)]));
    } else if (SUBSCHEMA_KEYWORDS.has(key) || SUBSCHEMA_LIST_KEYWORDS.has(key)) {
      out[key] = convertSchema(value, opts, depth + 1);
    } else if (!DROPPED.has(key)) {
      out[key] = value;
    }
  }
  if (opts.dialect === "openapi-3.0") applyDraft04Quirks(out, schema);
  dropHiddenRequired(out, opts.direction);
  return out;
}

/** OpenAPI annotations ajv would reject or misread; they never constrain a value. */
const DROPPED = new Set(["nullable", "discriminator", "xml", "externalDocs", "example", "deprecated", "$schema", "$id", "id"]);

function applyDraft04Quirks(out: Record<string, JsonValue>, original: Record<string, JsonValue>): void {
  if (original.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof out[flag] === "boolean") {
      if (out[flag] === true && typeof out[bound] === "number") {
        out[flag] = out[bound];
        delete out[bound];
      } else {
        delete out[flag];
      }
    }
  }
}

/**
 * A server-assigned `id` marked readOnly is often also `required`; a request
 * must not be refused for leaving it out. Likewise writeOnly in responses.
 */
function dropHiddenRequired(out: Record<string, JsonValue>, direction: Direction): void {
  const props = out.properties;
  if (!Array.isArray(out.required) || !props || typeof props !== "object" || Array.isArray(props)) return;
  const hidden = direction === "request" ? "readOnly" : "writeOnly";
  out.required = out.required.filter((name) => {
    const prop = typeof name === "string" ? (props as Record<string, JsonValue>)[name] : undefined;
    return !(prop && typeof prop === "object" && !Array.isArray(prop) && prop[hidden] === true);
  });
}

/** The components schema: every named schema under `definitions`/`$defs`, converted. */
export function componentsSchema(schemas: Record<string, JsonSchema>, opts: ConvertOptions): JsonSchema {
  const defs: Record<string, JsonValue> = {};
  for (const [name, schema] of Object.entries(schemas)) defs[name] = convertSchema(schema, opts);
  return { $id: opts.componentsId, [defsKey(opts.dialect)]: defs };
}
