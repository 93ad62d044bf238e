/**
 * Expands an artifact schema whole, for the views that need it so (the search
 * tool's `paths[path][method]` shape, the UI's schema viewer, generated types).
 *
 * Artifacts keep `{"$ref": "#/components/schemas/Name"}` so that big specs stay
 * small; expanding naively overflows the stack on recursive schemas and runs
 * forever on a ref graph built to explode (each schema using the next ten
 * times). So a ref already being expanded becomes `{"$circular": "Name"}` and a
 * node or depth budget overrun becomes `{"$truncated": "Name"}`: the output is
 * bounded whatever the input. Pure, no Node imports: the renderer uses it too.
 */
import type { JsonObject, JsonValue } from "./json.ts";
import { SCHEMA_REF_PREFIX, type JsonSchema } from "./artifact.ts";

/** Keywords whose value is one schema (or, for `items` in older drafts, a list of them). */
export const SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
  "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema",
]);
/** Keywords whose value is a list of schemas. */
export const SUBSCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keywords whose value maps names to schemas. */
export const SUBSCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  "properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
]);

export interface ExpandOptions {
  /** Schema nodes to emit before every further ref becomes `$truncated` (default 50,000). */
  maxNodes?: number;
  /** Nesting depth beyond which a node becomes `$truncated` (default 100). */
  maxDepth?: number;
}

export const DEFAULT_EXPAND_MAX_NODES = 50_000;
export const DEFAULT_EXPAND_MAX_DEPTH = 100;

/** `#/components/schemas/Name` → `Name`; undefined for any other ref. */
export function schemaRefName(ref: string): string | undefined {
  if (!ref.startsWith(SCHEMA_REF_PREFIX)) return undefined;
  const tail = ref.slice(SCHEMA_REF_PREFIX.length);
  if (!tail || tail.includes("/")) return undefined;
  // Artifact names need no escaping, but a hand-written ref may still carry it.
  if (!/[~%]/.test(tail)) return tail;
  try {
    return decodeURIComponent(tail).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    return undefined;
  }
}

/**
 * Returns `schema` with every component ref replaced by the component's
 * expansion. Refs to unknown names are left as they are. Data keywords
 * (`example`, `default`, `enum`, ...) are never searched for refs.
 */
export function expandSchema(schema: JsonValue, schemas: Record<string, JsonSchema>, opts: ExpandOptions = {}): JsonValue {
  const state: ExpandState = {
    schemas,
    nodesLeft: opts.maxNodes ?? DEFAULT_EXPAND_MAX_NODES,
    maxDepth: opts.maxDepth ?? DEFAULT_EXPAND_MAX_DEPTH,
    expanding: new Set(),
  };
  return expandNode(schema, 0, "", state);
}

interface ExpandState {
  schemas: Record<string, JsonSchema>;
  nodesLeft: number;
  maxDepth: number;
  /** Names on the current expansion path: meeting one again is a cycle. */
  expanding: Set<string>;
}

function expandNode(node: JsonValue, depth: number, owner: string, state: ExpandState): JsonValue {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  if (state.nodesLeft <= 0 || depth > state.maxDepth) return { $truncated: owner };
  state.nodesLeft -= 1;

  const ref = node.$ref;
  const name = typeof ref === "string" ? schemaRefName(ref) : undefined;
  if (name !== undefined && Object.hasOwn(state.schemas, name)) return expandRef(node, name, depth, owner, state);

  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) setOwn(out, key, expandKeyword(key, value, depth, owner, state));
  return out;
}

function expandRef(node: JsonObject, name: string, depth: number, owner: string, state: ExpandState): JsonValue {
  if (state.expanding.has(name)) return { $circular: name };
  if (state.nodesLeft <= 0 || depth + 1 > state.maxDepth) return { $truncated: name };
  state.expanding.add(name);
  const target = expandNode(state.schemas[name]!, depth + 1, name, state);
  state.expanding.delete(name);

  const siblings = Object.entries(node).filter(([key]) => key !== "$ref");
  if (siblings.length === 0) return target;
  // Keywords beside a ref (a description, nullable) refine the target; they win on conflict.
  const base: JsonObject = target !== null && typeof target === "object" && !Array.isArray(target) ? { ...target } : { allOf: [target] };
  for (const [key, value] of siblings) setOwn(base, key, expandKeyword(key, value, depth, owner, state));
  return base;
}

function expandKeyword(key: string, value: JsonValue, depth: number, owner: string, state: ExpandState): JsonValue {
  if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, expandNode(v, depth + 1, owner, state));
    return out;
  }
  if ((SUBSCHEMA_LIST_KEYWORDS.has(key) || SUBSCHEMA_KEYWORDS.has(key)) && Array.isArray(value)) {
    return value.map((v) => expandNode(v, depth + 1, owner, state));
  }
  if (SUBSCHEMA_KEYWORDS.has(key)) return expandNode(value, depth + 1, owner, state);
  return value;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Plain assignment of `__proto__` would change the prototype instead of adding a key. */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
