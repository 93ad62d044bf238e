/**
 * Stage 4a: the schemas. The artifact keeps `{"$ref": "#/components/schemas/Name"}`
 * instead of expanding (GitHub's spec is 13 MB kept, 73 MB expanded, and a
 * recursive schema cannot be expanded at all). So every schema is copied once,
 * with its keywords checked (schema-rules.ts) and its refs rewritten:
 *
 * - a ref to a component schema stays a ref, to the component's artifact name;
 * - a ref to a schema anywhere else (`#/definitions/X` left in a 3.0 document,
 *   `#/components/schemas/Pet/properties/owner`, a response's body) becomes a
 *   ref to a synthetic named entry, copied once through a work queue, so
 *   nothing here recurses across refs;
 * - an external or dangling ref becomes `{"x-unresolved-ref": "<ref>"}` and a warning.
 *
 * Artifact schema names match `[A-Za-z0-9._-]+` (the OpenAPI rule for
 * component names), so the tail of a ref is the name, unescaped. A component
 * whose name breaks the rule is renamed, and that is reported.
 */
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { SCHEMA_REF_PREFIX, type JsonSchema } from "../../../shared/artifact.ts";
import { SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS, schemaRefName } from "../../../shared/schema-expand.ts";
import { describeValue, isObject, setOwn } from "./json-guards.ts";
import { childPointer, parseRef, valueAt } from "./pointer.ts";
import type { RepairReport } from "./report.ts";
import { KEYWORD_CHECKS } from "./schema-rules.ts";

const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;
/** Path segments that say nothing about a schema, left out of synthetic names. */
const STRUCTURAL_TOKENS = new Set(["components", "schemas", "properties", "definitions", "$defs", "content", "schema", "paths", "responses", "requestBodies", "parameters", "items"]);

/** Thrown when copying would exceed the node budget; ingest turns it into a `too-large` error. */
export class SchemaBudgetExceeded extends Error {}

export class SchemaCollector {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly doc: JsonObject;
  private readonly report: RepairReport;
  private readonly componentNames = new Map<string, string>();
  private readonly pointerNames = new Map<string, string>();
  private readonly sourcePointers = new Map<string, string>();
  private readonly taken = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();
  private readonly queue: { name: string; value: JsonValue; pointer: string }[] = [];
  private nodesLeft: number;

  constructor(doc: JsonObject, report: RepairReport, maxNodes: number) {
    this.doc = doc;
    this.report = report;
    this.nodesLeft = maxNodes;
    this.nameComponents();
  }

  /** Copies every component schema (used or not: the search tool and the UI list them all). */
  collectComponents(): void {
    const components = isObject(this.doc.components) ? this.doc.components.schemas : undefined;
    if (!isObject(components)) return;
    for (const [key, value] of Object.entries(components)) {
      const name = this.componentNames.get(key)!;
      this.queue.push({ name, value, pointer: childPointer("/components/schemas", key) });
    }
    this.drain();
  }

  /** Copies a schema found inline (a parameter's, a body's); undefined when it is unusable. */
  schemaAt(value: JsonValue | undefined, pointer: string): JsonSchema | undefined {
    if (value === undefined) return undefined;
    const copied = this.copy(value, pointer);
    this.drain();
    if (copied === undefined) return undefined;
    return typeof copied === "boolean" ? (copied ? {} : { not: {} }) : (copied as JsonSchema);
  }

  /** The named schemas, after breaking ref-only cycles (`A = {$ref: B}`, `B = {$ref: A}`), which no validator can compile. */
  finish(): Record<string, JsonSchema> {
    this.drain();
    const state = new Map<string, "open" | "done">();
    for (const start of Object.keys(this.schemas)) {
      const chain: string[] = [];
      let name: string | undefined = start;
      while (name !== undefined && !state.has(name)) {
        state.set(name, "open");
        chain.push(name);
        const ref: JsonValue | undefined = this.schemas[name]?.$ref;
        name = typeof ref === "string" ? schemaRefName(ref) : undefined;
        if (name !== undefined && !Object.hasOwn(this.schemas, name)) name = undefined;
      }
      if (name !== undefined && state.get(name) === "open") {
        this.report.add("circular-ref", this.sourcePointers.get(name) ?? "", `the schema ${name} is only a $ref that leads back to itself; replaced by an empty schema`);
        this.schemas[name] = {};
      }
      for (const n of chain) state.set(n, "done");
    }
    return this.schemas;
  }

  private nameComponents(): void {
    const components = isObject(this.doc.components) ? this.doc.components.schemas : undefined;
    if (components === undefined) return;
    if (!isObject(components)) {
      this.report.dropped("/components/schemas", "components.schemas", `it must be an object of named schemas, not ${describeValue(components)}`);
      return;
    }
    const keys = Object.keys(components);
    for (const key of keys.filter((k) => NAME_PATTERN.test(k))) this.claim(key, key);
    for (const key of keys.filter((k) => !NAME_PATTERN.test(k))) {
      const name = this.unique(sanitizeName(key) || "schema");
      this.claim(key, name);
      this.report.add("renamed-schema", childPointer("/components/schemas", key), `schema names may use only letters, digits, ".", "-" and "_"; ${JSON.stringify(key)} is called ${JSON.stringify(name)} here`);
    }
  }

  private claim(key: string, name: string): void {
    this.componentNames.set(key, name);
    this.taken.add(name);
    this.sourcePointers.set(name, childPointer("/components/schemas", key));
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const { name, value, pointer } = this.queue.shift()!;
      const copied = this.copy(value, pointer);
      setOwn(this.schemas, name, copied === undefined ? {} : typeof copied === "boolean" ? (copied ? {} : { not: {} }) : (copied as JsonSchema));
    }
  }

  /** A checked copy of one schema; undefined when it is not a schema at all. */
  private copy(node: JsonValue, pointer: string): JsonValue | undefined {
    if (--this.nodesLeft < 0) throw new SchemaBudgetExceeded();
    if (typeof node === "boolean") return node;
    if (!isObject(node)) {
      this.report.dropped(pointer, "schema", `a schema must be an object, not ${describeValue(node)}`);
      return undefined;
    }
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      const at = childPointer(pointer, key);
      if (key === "$ref" && typeof value === "string") {
        const ref = this.rewriteRef(value, pointer);
        if (typeof ref === "string") out.$ref = ref;
        else Object.assign(out, ref);
        continue;
      }
      if (key === "$ref") {
        this.drop(at, key, `it must be a reference string, not ${describeValue(value)}`);
        continue;
      }
      const copied = this.copyKeyword(key, value, at);
      if (copied !== undefined) setOwn(out, key, copied);
    }
    return out;
  }

  private copyKeyword(key: string, value: JsonValue, at: string): JsonValue | undefined {
    if (SUBSCHEMA_MAP_KEYWORDS.has(key)) {
      if (!isObject(value)) return this.drop(at, key, `it must map names to schemas, not ${describeValue(value)}`);
      const out: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) {
        const copied = this.copy(sub, childPointer(at, name));
        if (copied !== undefined) setOwn(out, name, copied);
      }
      return out;
    }
    if (SUBSCHEMA_LIST_KEYWORDS.has(key) || (key === "items" && Array.isArray(value))) {
      if (!Array.isArray(value)) return this.drop(at, key, `it must be a list of schemas, not ${describeValue(value)}`);
      const out: JsonValue[] = [];
      value.forEach((sub, i) => {
        const copied = this.copy(sub, childPointer(at, i));
        if (copied !== undefined) out.push(copied);
      });
      return out;
    }
    if (SUBSCHEMA_KEYWORDS.has(key)) return this.copy(value, at);
    const check = Object.hasOwn(KEYWORD_CHECKS, key) ? KEYWORD_CHECKS[key] : undefined;
    const problem = check?.(value);
    if (problem) return this.drop(at, key, problem);
    // Annotations and data (description, example, default, enum values, x-*) are kept as they are.
    return value;
  }

  private drop(at: string, key: string, why: string): undefined {
    this.report.dropped(at, `schema keyword ${key}`, why);
    return undefined;
  }

  /** The artifact ref for a schema `$ref`, or the schema that stands in for one that cannot be followed. */
  private rewriteRef(ref: string, pointer: string): string | JsonObject {
    const parsed = parseRef(ref);
    if (parsed.kind === "external") {
      this.report.add("external-ref", pointer, `the schema refers to ${JSON.stringify(ref)}, outside this document; external files and URLs are never fetched, so it accepts any value`);
      return { "x-unresolved-ref": ref };
    }
    if (parsed.kind === "invalid") {
      this.report.add("unresolved-ref", pointer, `${parsed.reason}; the schema accepts any value`);
      return { "x-unresolved-ref": ref };
    }
    const [t0, t1, t2] = parsed.tokens;
    if (parsed.tokens.length === 3 && t0 === "components" && t1 === "schemas" && this.componentNames.has(t2!)) {
      return SCHEMA_REF_PREFIX + this.componentNames.get(t2!)!;
    }
    const known = this.pointerNames.get(parsed.pointer);
    if (known) return SCHEMA_REF_PREFIX + known;
    if (parsed.tokens.length === 0) {
      this.report.add("unresolved-ref", pointer, `the schema refers to ${JSON.stringify(ref)}, which is the whole document, not a schema; it accepts any value`);
      return { "x-unresolved-ref": ref };
    }
    const target = valueAt(this.doc, parsed.tokens);
    if (target === undefined || !(isObject(target) || typeof target === "boolean")) {
      const why = target === undefined ? "which does not exist in the document" : `which is ${describeValue(target)}, not a schema`;
      this.report.add("unresolved-ref", pointer, `the schema refers to ${JSON.stringify(ref)}, ${why}; it accepts any value`);
      return { "x-unresolved-ref": ref };
    }
    const name = this.unique(syntheticName(parsed.tokens));
    this.taken.add(name);
    this.pointerNames.set(parsed.pointer, name);
    this.sourcePointers.set(name, parsed.pointer);
    this.queue.push({ name, value: target, pointer: parsed.pointer });
    return SCHEMA_REF_PREFIX + name;
  }

  /** The next free `base`, `base_2`...; remembers where it stopped so many collisions stay linear. */
  private unique(base: string): string {
    if (!this.taken.has(base)) return base;
    for (let i = this.nextSuffix.get(base) ?? 2; ; i++) {
      if (!this.taken.has(`${base}_${i}`)) {
        this.nextSuffix.set(base, i + 1);
        return `${base}_${i}`;
      }
    }
  }
}

function sanitizeName(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^_+|_+$/g, "");
}

/** `#/definitions/Pet` → `Pet`; `#/components/schemas/Pet/properties/owner` → `Pet_owner`. */
function syntheticName(tokens: readonly string[]): string {
  const meaningful = tokens.filter((t) => !STRUCTURAL_TOKENS.has(t)).map(sanitizeName).filter(Boolean);
  const joined = meaningful.join("_");
  return (joined.length > 60 ? joined.slice(-60).replace(/^[_.-]+/, "") : joined) || "schema";
}

