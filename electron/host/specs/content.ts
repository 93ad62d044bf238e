/**
 * Request bodies, responses, headers and media types, each resolved through
 * its `$ref` (shared when it is a component) with its schemas handed to the
 * schema collector. A request body without any content cannot be sent, so it
 * is dropped and reported; a response without a description is fine.
 */
import type { MediaType, RequestBody, ResponseSpec } from "../../../shared/artifact.ts";
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { describeValue, isObject, setOwn } from "./json-guards.ts";
import { childPointer } from "./pointer.ts";
import { optionalBoolean, optionalString, type NormalizeContext } from "./context.ts";

type Encoding = NonNullable<MediaType["encoding"]>[string];
type Header = NonNullable<ResponseSpec["headers"]>[string];

export function normalizeContent(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): Record<string, MediaType> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    ctx.report.dropped(pointer, "content", `it must map media types to their schemas, not ${describeValue(value)}`);
    return undefined;
  }
  const out: Record<string, MediaType> = {};
  for (const [type, media] of Object.entries(value)) {
    const at = childPointer(pointer, type);
    if (!type.includes("/")) {
      ctx.report.dropped(at, "media type", `${JSON.stringify(type)} is not a media type such as application/json`);
      continue;
    }
    if (!isObject(media)) {
      ctx.report.dropped(at, "media type", `it must be an object, not ${describeValue(media)}`);
      continue;
    }
    setOwn(out, type, mediaType(ctx, media, at));
  }
  return out;
}

function mediaType(ctx: NormalizeContext, media: JsonObject, pointer: string): MediaType {
  const out: MediaType = {};
  const schema = ctx.schemas.schemaAt(media.schema, childPointer(pointer, "schema"));
  if (schema) out.schema = schema;
  if (media.example !== undefined) out.example = media.example;
  const examples = namedExamples(ctx, media.examples, childPointer(pointer, "examples"));
  if (examples) out.examples = examples;
  if (isObject(media.encoding)) {
    const encoding: Record<string, Encoding> = {};
    for (const [field, entry] of Object.entries(media.encoding)) {
      if (!isObject(entry)) continue;
      const e: Encoding = {};
      if (typeof entry.contentType === "string") e.contentType = entry.contentType;
      if (typeof entry.style === "string") e.style = entry.style;
      if (typeof entry.explode === "boolean") e.explode = entry.explode;
      setOwn(encoding, field, e);
    }
    out.encoding = encoding;
  }
  return out;
}

/** Named examples, each possibly a `$ref` to components/examples. */
export function namedExamples(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): MediaType["examples"] {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    ctx.report.dropped(pointer, "examples", `they must map names to examples, not ${describeValue(value)}`);
    return undefined;
  }
  const out: NonNullable<MediaType["examples"]> = {};
  for (const [name, entry] of Object.entries(value)) {
    const example = ctx.refs.resolveShared(entry, childPointer(pointer, name), "example", "example", (v) =>
      isObject(v) ? { ...(typeof v.summary === "string" ? { summary: v.summary } : {}), ...(v.value !== undefined ? { value: v.value } : {}) } : undefined,
    );
    if (example) setOwn(out, name, example);
  }
  return out;
}

export function normalizeRequestBody(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): RequestBody | undefined {
  if (value === undefined) return undefined;
  return ctx.refs.resolveShared(value, pointer, "request body", "requestBody", (body, at) => {
    if (!isObject(body)) {
      ctx.report.dropped(at, "request body", `it must be an object, not ${describeValue(body)}`);
      return undefined;
    }
    const content = normalizeContent(ctx, body.content, childPointer(at, "content"));
    if (!content || Object.keys(content).length === 0) {
      ctx.report.dropped(at, "request body", "it has no content (no media type says what to send)");
      return undefined;
    }
    const out: RequestBody = { required: optionalBoolean(ctx, body, "required", at) ?? false, content };
    const description = optionalString(ctx, body, "description", at);
    if (description !== undefined) out.description = description;
    return out;
  });
}

const STATUS_KEY = /^([1-5][0-9]{2}|[1-5]XX|default)$/;

export function normalizeResponses(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): Record<string, ResponseSpec> {
  const out: Record<string, ResponseSpec> = {};
  if (value === undefined) return out;
  if (!isObject(value)) {
    ctx.report.dropped(pointer, "responses", `they must map status codes to responses, not ${describeValue(value)}`);
    return out;
  }
  for (const [rawStatus, entry] of Object.entries(value)) {
    const at = childPointer(pointer, rawStatus);
    if (rawStatus.startsWith("x-")) continue;
    const status = rawStatus.toUpperCase() === "DEFAULT" ? "default" : rawStatus.toUpperCase();
    if (!STATUS_KEY.test(status)) {
      ctx.report.dropped(at, "response", `${JSON.stringify(rawStatus)} is not a status code (such as 200, 4XX or default)`);
      continue;
    }
    const response = ctx.refs.resolveShared(entry, at, "response", "response", (v, p) => buildResponse(ctx, v, p));
    if (response) setOwn(out, status, response);
  }
  return out;
}

function buildResponse(ctx: NormalizeContext, value: JsonValue, pointer: string): ResponseSpec | undefined {
  if (!isObject(value)) {
    ctx.report.dropped(pointer, "response", `it must be an object, not ${describeValue(value)}`);
    return undefined;
  }
  const out: ResponseSpec = { description: optionalString(ctx, value, "description", pointer) ?? "" };
  if (value.headers !== undefined) {
    if (isObject(value.headers)) {
      const headers: Record<string, Header> = {};
      for (const [name, entry] of Object.entries(value.headers)) {
        const header = ctx.refs.resolveShared(entry, childPointer(pointer, "headers", name), "header", "header", (v, p) => buildHeader(ctx, v, p));
        if (header) setOwn(headers, name, header);
      }
      out.headers = headers;
    } else {
      ctx.report.dropped(childPointer(pointer, "headers"), "headers", `they must map header names to headers, not ${describeValue(value.headers)}`);
    }
  }
  const content = normalizeContent(ctx, value.content, childPointer(pointer, "content"));
  if (content) out.content = content;
  return out;
}

function buildHeader(ctx: NormalizeContext, value: JsonValue, pointer: string): Header | undefined {
  if (!isObject(value)) {
    ctx.report.dropped(pointer, "header", `it must be an object, not ${describeValue(value)}`);
    return undefined;
  }
  const out: Header = {};
  const description = optionalString(ctx, value, "description", pointer);
  if (description !== undefined) out.description = description;
  const required = optionalBoolean(ctx, value, "required", pointer);
  if (required !== undefined) out.required = required;
  let schema = ctx.schemas.schemaAt(value.schema, childPointer(pointer, "schema"));
  if (!schema && isObject(value.content)) {
    // A header may describe itself with `content` instead of `schema`: take the first media type's schema.
    const [type, media] = Object.entries(value.content)[0] ?? [];
    if (type && isObject(media)) schema = ctx.schemas.schemaAt(media.schema, childPointer(pointer, "content", type, "schema"));
  }
  if (schema) out.schema = schema;
  return out;
}
