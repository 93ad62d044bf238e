/**
 * Property tests: ingest is total. Thousands of malformed variants of real
 * specs (wrong types anywhere, `paths` a string, parameter lists of numbers,
 * self-referencing schemas, ref graphs built to explode, deep nesting, cut-off
 * text) must each yield an artifact or a structured error, never a throw, and
 * every artifact must keep its promises (unique usable ids, schema refs that
 * resolve, JSON that serialises).
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { githubSpecPath } from "../../../scripts/fixtures.ts";
import { ingest } from "./ingest.ts";
import { isUsableOperationId } from "./operation-ids.ts";
import { SCHEMA_REF_PREFIX, type Artifact, type IngestResult, type JsonSchema } from "../../../shared/artifact.ts";
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS, expandSchema } from "../../../shared/schema-expand.ts";

const fixture = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");
const bases: { name: string; doc: JsonValue }[] = [];

beforeAll(() => {
  bases.push(
    { name: "demo", doc: parseYaml(fixture("../../../specs/demo/petstore.yaml")) },
    { name: "swagger2-petstore", doc: JSON.parse(fixture("./fixtures/swagger2-petstore.json")) },
    { name: "go-swagger", doc: parseYaml(fixture("./fixtures/go-swagger-todos.yaml")) },
    { name: "messy", doc: parseYaml(fixture("./fixtures/messy-3.0.yaml")) },
    { name: "recursive", doc: parseYaml(fixture("./fixtures/recursive.yaml")) },
    { name: "github-sample", doc: githubSample(JSON.parse(readFileSync(githubSpecPath(), "utf8")), 12) },
  );
}, 120_000);

/** A few GitHub paths with every component they reach, so mutations hit real shapes at small cost. */
function githubSample(spec: JsonObject, pathCount: number): JsonObject {
  const paths = Object.fromEntries(Object.entries(spec.paths as JsonObject).filter((_, i) => i % 33 === 0).slice(0, pathCount));
  const components = spec.components as Record<string, JsonObject>;
  const picked: Record<string, JsonObject> = {};
  const queue: JsonValue[] = [paths];
  while (queue.length > 0) {
    const node = queue.pop();
    if (Array.isArray(node)) queue.push(...node);
    else if (node && typeof node === "object") {
      const ref = node.$ref;
      if (typeof ref === "string" && ref.startsWith("#/components/")) {
        const [, , kind, name] = ref.split("/");
        if (kind && name && !picked[kind]?.[name]) {
          (picked[kind] ??= {})[name] = components[kind]![name]!;
          queue.push(components[kind]![name]!);
        }
      }
      queue.push(...Object.values(node));
    }
  }
  return { openapi: spec.openapi!, info: spec.info!, servers: spec.servers!, tags: spec.tags!, paths, components: picked };
}

/** A location in the document, picked by a random walk from the root (cheap on big documents). */
function pickLocation(doc: JsonValue, seed: number): string[] {
  let state = (seed * 2654435761 + 1) >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const path: string[] = [];
  let node = doc;
  while (node && typeof node === "object" && (path.length < 2 || random() < 0.85)) {
    let keys = Object.keys(node);
    // Near the root, prefer containers: replacing `openapi` itself is a refusal, covered by its own test.
    if (path.length < 2) keys = keys.filter((k) => (node as Record<string, JsonValue>)[k] !== null && typeof (node as Record<string, JsonValue>)[k] === "object");
    if (keys.length === 0) break;
    const key = keys[Math.floor(random() * keys.length)]!;
    path.push(key);
    node = (node as Record<string, JsonValue>)[key]!;
  }
  return path;
}

function pointerOf(path: string[]): string {
  return `#${path.map((t) => `/${t.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")}`;
}

type Mutation =
  | { kind: "replace"; at: number; value: JsonValue }
  | { kind: "delete"; at: number }
  | { kind: "refTo"; at: number; target: number }
  | { kind: "nest"; at: number; depth: number }
  | { kind: "explode"; at: number; fanout: number; levels: number };

const weirdValue: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(null, true, false, 0, -1, 1e308, "", "string", [], {}, [1, 2, 3], ["a", 1, null], { $ref: "#" }, { $ref: "#/" }, { $ref: "other.yaml#/X" }, { $ref: "#/components/schemas/Missing" }, { $ref: 42 }, { type: "int" }, { required: true }, { in: "body" }, { name: 5, in: 5 }, { "__proto__": { polluted: true } }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: weirdValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("refTo" as const), at: fc.nat(), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("nest" as const), at: fc.nat(), depth: fc.integer({ min: 50, max: 400 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("explode" as const), at: fc.nat(), fanout: fc.integer({ min: 2, max: 10 }), levels: fc.integer({ min: 5, max: 30 }) }) },
);

function applyMutation(doc: JsonValue, m: Mutation): JsonValue {
  const path = pickLocation(doc, m.at);
  let replacement: JsonValue | undefined;
  switch (m.kind) {
    case "replace":
      replacement = structuredClone(m.value);
      break;
    case "delete":
      replacement = undefined;
      break;
    case "refTo": // a ref to any location, itself and its ancestors included
      replacement = { $ref: pointerOf(pickLocation(doc, m.target)) };
      break;
    case "nest": {
      let value: JsonValue = { type: "string" };
      for (let i = 0; i < m.depth; i++) value = i % 2 ? { items: value } : { properties: { p: value } };
      replacement = value;
      break;
    }
    case "explode": {
      // L0 uses L1 `fanout` times, L1 uses L2 ... : fanout^levels nodes when expanded.
      if (doc && typeof doc === "object" && !Array.isArray(doc)) {
        const components = (doc.components && typeof doc.components === "object" && !Array.isArray(doc.components) ? doc.components : (doc.components = {})) as JsonObject;
        const schemas = (components.schemas && typeof components.schemas === "object" && !Array.isArray(components.schemas) ? components.schemas : (components.schemas = {})) as JsonObject;
        for (let i = 0; i < m.levels; i++) schemas[`Boom${i}`] = { allOf: Array.from({ length: m.fanout }, () => ({ $ref: `#/components/schemas/Boom${i + 1}` })) };
        schemas[`Boom${m.levels}`] = { type: "object", properties: { back: { $ref: "#/components/schemas/Boom0" } } };
      }
      replacement = { $ref: "#/components/schemas/Boom0" };
      break;
    }
  }
  if (path.length === 0) return replacement === undefined ? {} : replacement;
  let parent: JsonValue = doc;
  for (const token of path.slice(0, -1)) parent = (parent as Record<string, JsonValue>)[token]!;
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    if (replacement === undefined) parent.splice(Number(last), 1);
    else parent[Number(last)] = replacement;
  } else if (parent && typeof parent === "object") {
    if (replacement === undefined) delete parent[last];
    else Object.defineProperty(parent, last, { value: replacement, enumerable: true, writable: true, configurable: true });
  }
  return doc;
}

/** Every ref in schema positions (data such as examples may hold anything). */
function schemaRefs(schema: JsonValue, out: string[]): void {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return;
  if (typeof schema.$ref === "string") out.push(schema.$ref);
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_MAP_KEYWORDS.has(key) && value && typeof value === "object" && !Array.isArray(value)) for (const v of Object.values(value)) schemaRefs(v, out);
    else if ((SUBSCHEMA_LIST_KEYWORDS.has(key) || SUBSCHEMA_KEYWORDS.has(key)) && Array.isArray(value)) for (const v of value) schemaRefs(v, out);
    else if (SUBSCHEMA_KEYWORDS.has(key)) schemaRefs(value, out);
  }
}

function checkResult(result: IngestResult): void {
  if (!result.ok) {
    expect(typeof result.error.code).toBe("string");
    expect(result.error.message.length).toBeGreaterThan(0);
    // Our own bugs, not the spec's: the upgrader is shielded by swagger2.ts, and nothing else may throw.
    expect(["internal-error", "upgrade-failed"]).not.toContain(result.error.code);
    return;
  }
  const artifact: Artifact = result.artifact;
  const text = JSON.stringify(artifact);
  expect(JSON.parse(text).operations).toHaveLength(artifact.operations.length);
  const ids = artifact.operations.map((op) => op.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(isUsableOperationId(id), id).toBe(true);
  const refs: string[] = [];
  const schemas: JsonSchema[] = Object.values(artifact.schemas);
  for (const op of artifact.operations) {
    for (const p of op.parameters) if (p.schema) schemas.push(p.schema);
    for (const media of Object.values(op.requestBody?.content ?? {})) if (media.schema) schemas.push(media.schema);
    for (const response of Object.values(op.responses)) for (const media of Object.values(response.content ?? {})) if (media.schema) schemas.push(media.schema);
  }
  for (const schema of schemas) schemaRefs(schema, refs);
  for (const ref of refs) {
    expect(ref.startsWith(SCHEMA_REF_PREFIX), ref).toBe(true);
    expect(Object.hasOwn(artifact.schemas, ref.slice(SCHEMA_REF_PREFIX.length)), ref).toBe(true);
  }
  // Expansion is bounded: at most 1,000 schema nodes, each carrying data (examples, descriptions) no bigger than the artifact's.
  const bound = Math.max(1_000_000, text.length * 4);
  for (const schema of Object.values(artifact.schemas).slice(0, 10)) {
    expect(JSON.stringify(expandSchema(schema, artifact.schemas, { maxNodes: 1_000 })).length).toBeLessThan(bound);
  }
  for (const w of artifact.warnings) expect(w.pointer === "" || w.pointer.startsWith("/")).toBe(true);
}

describe("ingest is total", () => {
  it("over structural mutations of real specs", () => {
    const outcomes = { refused: 0, repaired: 0 };
    const baseWarnings = new Map(bases.map((b) => {
      const result = ingest(JSON.stringify(b.doc));
      return [b.name, result.ok ? JSON.stringify(result.artifact.warnings) : ""];
    }));
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 7 }).map((n) => n === 0), (baseIndex, mutations, asYaml) => {
        const base = bases[baseIndex % bases.length]!;
        let doc = structuredClone(base.doc);
        for (const m of mutations) doc = applyMutation(doc, m);
        // YAML reads ten times slower than JSON: only the small specs go through it.
        const text = asYaml && base.name !== "github-sample" ? toYaml(doc, { aliasDuplicateObjects: false }) : JSON.stringify(doc);
        const result = ingest(text);
        checkResult(result);
        if (!result.ok) outcomes.refused += 1;
        else if (JSON.stringify(result.artifact.warnings) !== baseWarnings.get(base.name)) outcomes.repaired += 1;
      }),
      { numRuns: 1_500 },
    );
    // The mutations must bite: many variants need repairs the base did not (the others only touch data such as descriptions).
    expect(outcomes.repaired + outcomes.refused).toBeGreaterThan(600);
  }, 120_000);

  it("over the documents' top-level fields set to every wrong type", () => {
    const wrong: JsonValue[] = [null, "a string", 42, true, [], [1, 2], {}, { $ref: "#" }];
    let runs = 0;
    for (const base of bases) {
      for (const key of Object.keys(base.doc as JsonObject)) {
        for (const value of wrong) {
          checkResult(ingest(JSON.stringify({ ...(base.doc as JsonObject), [key]: value })));
          runs += 1;
        }
      }
    }
    expect(runs).toBeGreaterThan(200);
  });

  it("over cut-off and corrupted text", () => {
    const texts = [fixture("../../../specs/demo/petstore.yaml"), fixture("./fixtures/swagger2-petstore.json")];
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.string({ maxLength: 8 }), fc.boolean(), (which, at, junk, cut) => {
        const text = texts[which % texts.length]!;
        const i = at % text.length;
        checkResult(ingest(cut ? text.slice(0, i) : text.slice(0, i) + junk + text.slice(i + 1)));
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it("over hostile YAML: self-containing aliases, alias bombs, deep flow nesting", () => {
    const cases = [
      "openapi: 3.0.0\npaths: &p\n  /a: *p\n",
      "openapi: 3.0.0\ncomponents:\n  schemas:\n    A: &a\n      properties:\n        self: *a\npaths: {}\n",
      `openapi: 3.0.0\npaths: ${"[".repeat(5_000)}${"]".repeat(5_000)}\n`,
      `openapi: 3.0.0\ninfo: ${"{a: ".repeat(3_000)}1${"}".repeat(3_000)}\n`,
      ["a: &a [x,x,x,x,x,x,x,x,x,x]", ..."bcdefghij".split("").map((c, i) => `${c}: &${c} [${Array(10).fill(`*${"abcdefghij"[i]}`).join(",")}]`)].join("\n"),
    ];
    for (const text of cases) checkResult(ingest(text));
  });
});
