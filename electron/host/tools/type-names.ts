/**
 * TypeScript names for an artifact's component schemas, one per schema and
 * never two alike: `pull-request` and `PullRequest` both read `PullRequest`,
 * so the one spelled that way keeps it and the other becomes `PullRequest_2`.
 *
 * A schema also reads differently by direction, as the request validator
 * treats it (proxy/schema-dialect.ts): a required `readOnly` property (a
 * server-assigned `id`) need not be sent, and a required `writeOnly` one (a
 * password) is not returned. A schema where that matters, itself or through a
 * schema it uses, gets a second type for requests, `PetInput`; the plain name
 * is the response's.
 */
import type { JsonSchema } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { schemaRefName, SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from "../../../shared/schema-expand.ts";

export type Direction = "request" | "response";

export interface TypeNames {
  /** The type of component schema `schema` as it reads in `direction`. */
  of(schema: string, direction: Direction): string;
  /** Whether the schema reads differently in a request than in a response (so it has an `…Input` type). */
  hasRequestVariant(schema: string): boolean;
}

/** Global types the generated code uses by name, which a schema's type must not shadow. */
const RESERVED = new Set(["Array", "Record", "Promise", "WorkbenchResponse", "WorkbenchRequest", "WorkbenchCallError"]);

/** `pull-request` → `PullRequest`; always a valid identifier. */
export function typeName(schemaName: string): string {
  const words = schemaName.split(/[^A-Za-z0-9_$]+/).filter(Boolean);
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("") || "Schema";
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

const cache = new WeakMap<Record<string, JsonSchema>, TypeNames>();

export function typeNamesFor(schemas: Record<string, JsonSchema>): TypeNames {
  let names = cache.get(schemas);
  if (!names) cache.set(schemas, (names = assignTypeNames(schemas)));
  return names;
}

function assignTypeNames(schemas: Record<string, JsonSchema>): TypeNames {
  const taken = new Set(RESERVED);
  const response = new Map<string, string>();
  const claim = (base: string) => {
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
    taken.add(name);
    return name;
  };
  // A schema already named as its type keeps that name, whatever comes first in the document.
  for (const name of Object.keys(schemas)) if (typeName(name) === name && !taken.has(name)) response.set(name, claim(name));
  for (const name of Object.keys(schemas)) if (!response.has(name)) response.set(name, claim(typeName(name)));
  const variants = schemasWithRequestVariant(schemas);
  const request = new Map([...variants].map((name) => [name, claim(`${response.get(name)!}Input`)]));
  return {
    of: (schema, direction) => (direction === "request" ? request.get(schema) : undefined) ?? response.get(schema) ?? typeName(schema),
    hasRequestVariant: (schema) => request.has(schema),
  };
}

/** Schemas with a required readOnly or writeOnly property, and every schema that uses one of them. */
function schemasWithRequestVariant(schemas: Record<string, JsonSchema>): Set<string> {
  const usedBy = new Map<string, string[]>();
  const marked = new Set<string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const scan = scanSchema(schema);
    if (scan.hidesRequired) marked.add(name);
    for (const ref of scan.refs) {
      const list = usedBy.get(ref) ?? [];
      list.push(name);
      usedBy.set(ref, list);
    }
  }
  const queue = [...marked];
  while (queue.length) {
    for (const user of usedBy.get(queue.pop()!) ?? []) {
      if (!marked.has(user)) {
        marked.add(user);
        queue.push(user);
      }
    }
  }
  return marked;
}

/** The component refs in a schema (not followed), and whether it requires a readOnly or writeOnly property anywhere inside. */
function scanSchema(schema: JsonValue): { refs: Set<string>; hidesRequired: boolean } {
  const refs = new Set<string>();
  let hidesRequired = false;
  const visit = (node: JsonValue | undefined, depth: number) => {
    if (!isObject(node) || depth > 100) return;
    if (typeof node.$ref === "string") {
      const name = schemaRefName(node.$ref);
      if (name) refs.add(name);
    }
    const props = node.properties;
    if (Array.isArray(node.required) && isObject(props)) {
      for (const key of node.required) {
        const prop = typeof key === "string" ? props[key] : undefined;
        if (isObject(prop) && (prop.readOnly === true || prop.writeOnly === true)) hidesRequired = true;
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (SUBSCHEMA_KEYWORDS.has(key)) visit(value, depth + 1);
      else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) for (const item of value) visit(item, depth + 1);
      else if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(schema, 0);
  return { refs, hidesRequired };
}

function isObject(value: JsonValue | undefined): value is Record<string, JsonValue> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}
