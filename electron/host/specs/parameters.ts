/**
 * Parameters: resolved, checked, and merged from the path item and the
 * operation (the operation's win on name + location, as the spec says). The
 * path template and the path parameters must agree, or the proxy could not
 * build a URL: a `{placeholder}` without a parameter gets a string one, a path
 * parameter missing from the template is dropped; both are reported.
 */
import type { Parameter, ParameterLocation } from "../../../shared/artifact.ts";
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { describeValue, isObject } from "./json-guards.ts";
import { childPointer } from "./pointer.ts";
import { optionalBoolean, optionalString, type NormalizeContext } from "./context.ts";
import { namedExamples, normalizeContent } from "./content.ts";

const LOCATIONS = new Set<ParameterLocation>(["path", "query", "header", "cookie"]);
/** Headers the spec says a parameter may not describe: the proxy sets them. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);
/** Parameter-level keywords of Swagger 2.0 that belong in `schema` in OpenAPI 3. */
const SWAGGER_SCHEMA_FIELDS = ["type", "format", "items", "enum", "default", "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems"];

/** One parameter list (path item or operation level), in order, without unusable or repeated entries. */
export function normalizeParameterList(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): Parameter[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    ctx.report.dropped(pointer, "parameters", `they must be a list, not ${describeValue(value)}`);
    return [];
  }
  const out: Parameter[] = [];
  const seen = new Set<string>();
  value.forEach((entry, i) => {
    const at = childPointer(pointer, i);
    const param = ctx.refs.resolveShared(entry, at, "parameter", "parameter", (v, p) => buildParameter(ctx, v, p));
    if (!param) return;
    const key = parameterKey(param);
    if (seen.has(key)) {
      ctx.report.dropped(at, "parameter", `the ${param.in} parameter ${JSON.stringify(param.name)} is already in this list`);
      return;
    }
    seen.add(key);
    out.push(param);
  });
  return out;
}

/** Path-level parameters overridden by the operation's own, then checked against the path template. */
export function mergeParameters(ctx: NormalizeContext, shared: Parameter[], own: Parameter[], path: string, pointer: string): Parameter[] {
  const ownKeys = new Set(own.map(parameterKey));
  const merged = [...shared.filter((p) => !ownKeys.has(parameterKey(p))), ...own];
  const placeholders = [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
  const out = merged.filter((p) => {
    if (p.in !== "path" || placeholders.includes(p.name)) return true;
    ctx.report.dropped(pointer, `path parameter ${JSON.stringify(p.name)}`, `the path ${path} has no {${p.name}} placeholder`);
    return false;
  });
  for (const name of placeholders) {
    if (out.some((p) => p.in === "path" && p.name === name)) continue;
    ctx.report.add("missing-path-parameter", pointer, `the path has a {${name}} placeholder but no path parameter describes it; added one that takes a string`);
    out.push({ name, in: "path", required: true, schema: { type: "string" } });
  }
  return out;
}

function parameterKey(p: Parameter): string {
  return `${p.in}\u0000${p.in === "header" ? p.name.toLowerCase() : p.name}`;
}

function buildParameter(ctx: NormalizeContext, value: JsonValue, pointer: string): Parameter | undefined {
  const drop = (why: string) => void ctx.report.dropped(pointer, "parameter", why);
  if (!isObject(value)) return drop(`it must be an object, not ${describeValue(value)}`);
  if (typeof value.name !== "string" || value.name === "") return drop(`it has no name (found ${describeValue(value.name)})`);
  const location = value.in;
  if (location === "body" || location === "formData") return drop(`"in: ${location}" is Swagger 2.0; in OpenAPI 3 a body is a requestBody`);
  if (typeof location !== "string" || !LOCATIONS.has(location as ParameterLocation)) {
    return drop(`"in" must be path, query, header or cookie, not ${describeValue(location)}`);
  }
  if (location === "header" && IGNORED_HEADERS.has(value.name.toLowerCase())) {
    ctx.report.add("ignored-parameter", pointer, `the ${value.name} header parameter is ignored (the spec reserves it); the workbench sets it from the content type and the auth config`);
    return undefined;
  }
  const param: Parameter = { name: value.name, in: location as ParameterLocation, required: optionalBoolean(ctx, value, "required", pointer) ?? false };
  if (param.in === "path" && !param.required) {
    ctx.report.add("repaired-field", childPointer(pointer, "required"), `path parameter ${JSON.stringify(param.name)} must be required; read as required`);
    param.required = true;
  }
  const description = optionalString(ctx, value, "description", pointer);
  if (description !== undefined) param.description = description;
  const deprecated = optionalBoolean(ctx, value, "deprecated", pointer);
  if (deprecated !== undefined) param.deprecated = deprecated;
  const style = optionalString(ctx, value, "style", pointer);
  if (style !== undefined) param.style = style;
  const explode = optionalBoolean(ctx, value, "explode", pointer);
  if (explode !== undefined) param.explode = explode;
  const allowReserved = optionalBoolean(ctx, value, "allowReserved", pointer);
  if (allowReserved !== undefined) param.allowReserved = allowReserved;
  if (value.example !== undefined) param.example = value.example;

  const schema = value.schema !== undefined ? ctx.schemas.schemaAt(value.schema, childPointer(pointer, "schema")) : swaggerStyleSchema(ctx, value, pointer);
  if (schema) param.schema = schema;
  const content = normalizeContent(ctx, value.content, childPointer(pointer, "content"));
  if (content && Object.keys(content).length > 0) param.content = content;
  // Named examples are read for their side effect of reporting broken refs; a parameter keeps one example.
  if (param.example === undefined) {
    const first = Object.values(namedExamples(ctx, value.examples, childPointer(pointer, "examples")) ?? {})[0];
    if (first?.value !== undefined) param.example = first.value;
  }
  return param;
}

/** `type: integer` right on a parameter is Swagger 2.0 style, common in hand-written 3.0 specs: lift it into a schema. */
function swaggerStyleSchema(ctx: NormalizeContext, value: JsonObject, pointer: string) {
  if (typeof value.type !== "string") return undefined;
  const lifted: JsonObject = {};
  for (const field of SWAGGER_SCHEMA_FIELDS) if (value[field] !== undefined) lifted[field] = value[field]!;
  ctx.report.add("repaired-field", pointer, `the parameter gives its type directly (Swagger 2.0 style); read ${SWAGGER_SCHEMA_FIELDS.filter((f) => value[f] !== undefined).join(", ")} as its schema`);
  return ctx.schemas.schemaAt(lifted, pointer);
}
