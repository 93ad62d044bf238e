/**
 * Step 2: are the arguments what the operation accepts? Parameters and the body
 * are checked with ajv in the spec's own dialect (draft-07 with OpenAPI 3.0's
 * quirks converted, or 2020-12 for 3.1). Messages quote the value's location
 * and the schema fragment that failed, because "invalid request" teaches a model
 * nothing. Validators are compiled lazily per operation and cached per artifact.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Artifact, JsonSchema, Operation, Parameter } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { linearRegExpEngine, takeUncheckedPatterns } from "./linear-regexp.ts";
import { componentsSchema, convertSchema, type ConvertOptions } from "./schema-dialect.ts";
import type { CallRequest } from "./types.ts";

// ajv-formats is CommonJS with a default export function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface ValidationIssue {
  /** Where in the call: `query.limit`, `path.petId`, `body/name`. */
  at: string;
  message: string;
}

interface ArtifactValidators {
  ajv: Ajv;
  coercing: Ajv;
  opts: ConvertOptions;
  cache: Map<string, ValidateFunction | Error>;
  /** Per operation id: spec patterns its validators cannot check (see linear-regexp.ts). */
  unchecked: Map<string, string[]>;
}

const perArtifact = new WeakMap<Artifact, ArtifactValidators>();

function validatorsFor(artifact: Artifact): ArtifactValidators {
  let v = perArtifact.get(artifact);
  if (v) return v;
  const opts: ConvertOptions = { dialect: artifact.schemaDialect, direction: "request", componentsId: `https://workbench.invalid/${artifact.hash}/components` };
  const make = (coerceTypes: boolean | "array") => {
    // Spec patterns run on a linear-time engine: no spec can hold the host with a backtracking pattern.
    const options = { strict: false, allErrors: true, verbose: true, coerceTypes, validateFormats: true, logger: false as const, code: { regExp: linearRegExpEngine } };
    const ajv = artifact.schemaDialect === "openapi-3.1" ? new Ajv2020(options) : new Ajv(options);
    addFormats(ajv as Ajv);
    ajv.addSchema(componentsSchema(artifact.schemas, opts) as object);
    return ajv as Ajv;
  };
  v = { ajv: make(false), coercing: make("array"), opts, cache: new Map(), unchecked: new Map() };
  perArtifact.set(artifact, v);
  return v;
}

function compiled(artifact: Artifact, key: string, schema: JsonSchema, coerce: boolean): ValidateFunction | Error {
  const v = validatorsFor(artifact);
  const cacheKey = `${coerce ? "c" : "s"}:${key}`;
  let fn = v.cache.get(cacheKey);
  if (!fn) {
    takeUncheckedPatterns();
    try {
      fn = (coerce ? v.coercing : v.ajv).compile(convertSchema(schema, v.opts) as object);
    } catch (err) {
      fn = err instanceof Error ? err : new Error(String(err));
    }
    const unchecked = takeUncheckedPatterns();
    if (unchecked.length) {
      const operationId = key.slice(0, key.indexOf(":"));
      v.unchecked.set(operationId, [...(v.unchecked.get(operationId) ?? []), ...unchecked]);
    }
    v.cache.set(cacheKey, fn);
  }
  return fn;
}

/** Every problem with the call's parameters and body; empty when it is valid. */
export function validateCall(artifact: Artifact, operation: Operation, call: CallRequest, pathParams: Record<string, JsonValue>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const sources: Record<Parameter["in"], Record<string, JsonValue>> = {
    path: pathParams,
    query: call.query,
    header: lowerKeys(call.headers),
    cookie: call.cookies,
  };
  for (const param of operation.parameters) {
    const source = sources[param.in];
    const key = param.in === "header" ? param.name.toLowerCase() : param.name;
    const value = source[key];
    if (value === undefined || value === "") {
      if (param.required) issues.push({ at: `${param.in}.${param.name}`, message: `missing required ${param.in} parameter "${param.name}"${param.description ? ` (${firstLine(param.description)})` : ""}` });
      continue;
    }
    if (!param.schema) continue;
    const fn = compiled(artifact, `${operation.id}:${param.in}:${param.name}`, param.schema, true);
    if (fn instanceof Error) continue; // a broken schema in the spec: not the call's fault
    // Coercion rewrites values ("10" → 10) inside objects and arrays: check a copy, so the request sends what the program gave.
    const checked = value !== null && typeof value === "object" ? structuredClone(value) : value;
    if (!fn(checked)) issues.push(...describeErrors(fn.errors ?? [], `${param.in}.${param.name}`));
  }
  issues.push(...undeclared(operation, "query", call.query), ...undeclared(operation, "cookie", call.cookies));
  issues.push(...validateBody(artifact, operation, call));
  return issues;
}

/**
 * Query parameters and cookies the operation does not declare (only `request()`
 * can send them: a binding refuses unknown names when it parses its arguments).
 * `request({path: "/things/1?_method=DELETE"})` must not slip past what the
 * operation's binding would refuse.
 */
function undeclared(operation: Operation, location: "query" | "cookie", given: Record<string, unknown>): ValidationIssue[] {
  const names = Object.keys(given);
  if (names.length === 0) return [];
  const declared = operation.parameters.filter((p) => p.in === location).map((p) => p.name);
  return names
    .filter((name) => !declared.includes(name))
    .map((name) => ({
      at: `${location}.${name}`,
      message: `${location} parameter "${name}" is not declared by ${operation.id} (its ${location} parameters: ${declared.join(", ") || "none"})`,
    }));
}

/** Spec patterns of this operation that are not checked (lookaround, backreferences), known once its validators compiled. */
export function uncheckedPatterns(artifact: Artifact, operation: Operation): string[] {
  return [...new Set(perArtifact.get(artifact)?.unchecked.get(operation.id) ?? [])];
}

function validateBody(artifact: Artifact, operation: Operation, call: CallRequest): ValidationIssue[] {
  const body = operation.requestBody;
  if (call.body === undefined) {
    return body?.required ? [{ at: "body", message: `missing required request body (${Object.keys(body.content).join(" or ") || "any content"})` }] : [];
  }
  if (!body) return [];
  const mediaType = pickMediaType(Object.keys(body.content), call.contentType);
  if (!mediaType) {
    return [{ at: "body", message: `content type ${call.contentType} is not accepted; the operation takes ${Object.keys(body.content).join(", ")}` }];
  }
  const schema = body.content[mediaType]?.schema;
  // A raw string body for a non-JSON type is the program's escape hatch: not checked.
  if (!schema || (typeof call.body === "string" && !isJsonLike(mediaType))) return [];
  const fn = compiled(artifact, `${operation.id}:body:${mediaType}`, schema, !isJsonLike(mediaType));
  if (fn instanceof Error) return [];
  const value = isJsonLike(mediaType) ? call.body : filePartsAsStrings(structuredClone(call.body));
  return fn(value) ? [] : describeErrors(fn.errors ?? [], "body");
}

/**
 * A file part (`{filename, contentType, base64 | text}`) stands where the spec
 * says `type: string, format: binary`; validate it as the string it becomes.
 */
function filePartsAsStrings(body: JsonValue): JsonValue {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const isFile = (v: JsonValue) => !!v && typeof v === "object" && !Array.isArray(v) && (typeof v.base64 === "string" || (typeof v.text === "string" && typeof v.filename === "string"));
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, isFile(v) ? "<file>" : Array.isArray(v) ? v.map((x) => (isFile(x) ? "<file>" : x)) : v]));
}

/** The request body media type to use: the one asked for, else JSON, else the first the spec lists. */
export function pickMediaType(available: string[], wanted?: string): string | undefined {
  if (wanted) {
    const base = wanted.split(";")[0]!.trim().toLowerCase();
    return available.find((m) => m.toLowerCase() === base) ?? available.find((m) => m === "*/*" || (m.endsWith("/*") && base.startsWith(m.slice(0, -1)))) ?? (available.length ? undefined : base);
  }
  return available.find((m) => m === "application/json") ?? available.find(isJsonLike) ?? available[0];
}

export function isJsonLike(mediaType: string): boolean {
  return /^application\/([\w.-]+\+)?json\b/i.test(mediaType) || mediaType === "*/*";
}

function describeErrors(errors: ErrorObject[], root: string): ValidationIssue[] {
  // anyOf/oneOf produce one error per branch; keep the most specific few.
  return errors.slice(0, 5).map((e) => {
    const at = `${root}${e.instancePath}`;
    const parent = e.parentSchema as { properties?: Record<string, unknown> } | undefined;
    const detail =
      e.keyword === "additionalProperties"
        ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"${parent?.properties ? `; allowed: ${Object.keys(parent.properties).join(", ")}` : ""}`
        : e.keyword === "enum"
          ? ` ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues).slice(0, 200)}`
          : "";
    const schema = e.keyword === "additionalProperties" ? "" : ` (schema: ${quote(e.parentSchema)})`;
    return { at, message: `${at} ${e.message ?? "is invalid"}${detail}${schema}` };
  });
}

/** The failing schema fragment, with refs named as in the spec rather than by ajv's internal ids. */
function quote(schema: unknown): string {
  const text = (JSON.stringify(schema) ?? "").replace(/"https:\/\/workbench\.invalid\/[^"#]*#\/(?:\$defs|definitions)\/([^"]+)"/g, (_, name: string) => `"#/components/schemas/${decodeURIComponent(name)}"`);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

function lowerKeys(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k.toLowerCase(), v]));
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.slice(0, 80);
}
