/**
 * Step 5 (before credentials): the HTTP request exactly as it will be sent.
 * Base URL with its path prefix, path parameters encoded per style, query
 * serialised per style/explode, headers the program may set (declared header
 * parameters and the API's passthrough allowlist; credential headers stay
 * reserved), the body as JSON, form, multipart or raw, and an idempotency key
 * on writes when the API asks for one.
 */
import { randomUUID } from "node:crypto";
import type { Operation, Parameter } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { serializeCookieParam, serializeHeaderParam, serializePathParam, serializeQueryParam, type StyleOptions } from "./param-style.ts";
import type { CredentialSlots } from "./credentials.ts";
import { isWrite } from "./policy.ts";
import { CallFailure, type ApiTarget, type CallRequest, type OutgoingRequest } from "./types.ts";
import { checkParameterSegment, checkUnderBase, templateSegmentCount } from "./url-guard.ts";
import { isJsonLike, pickMediaType } from "./validate.ts";

/** Headers a program can never set: they carry credentials or belong to the transport. */
export const RESERVED_HEADERS = new Set([
  "authorization", "proxy-authorization", "cookie", "host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer", "keep-alive",
]);

export const USER_AGENT = "codemode-workbench/0.1";

export interface BuildInputs {
  target: ApiTarget;
  operation: Operation;
  call: CallRequest;
  pathParams: Record<string, JsonValue>;
  /** Where the credential will go (an apiKey header, query parameter or cookie): reserved for this API. */
  credentialSlots?: CredentialSlots;
  /** Reuse a key (replay of an approved call); otherwise a fresh one is made when configured. */
  idempotencyKey?: string;
}

function styleOf(param: Parameter | undefined): StyleOptions {
  if (!param) return {};
  return { style: param.style, explode: param.explode, allowReserved: param.allowReserved, contentType: param.content ? Object.keys(param.content)[0] : undefined };
}

/** Per operation, computed once: its parameters by location and name, and its Accept header. */
interface OperationShape {
  params: Record<Parameter["in"], Map<string, Parameter>>;
  accept: string;
}
const shapes = new WeakMap<Operation, OperationShape>();

function shapeOf(operation: Operation): OperationShape {
  let shape = shapes.get(operation);
  if (!shape) {
    const byLocation = (location: Parameter["in"]) => new Map(operation.parameters.filter((p) => p.in === location).map((p) => [location === "header" ? p.name.toLowerCase() : p.name, p]));
    shape = { params: { path: byLocation("path"), query: byLocation("query"), header: byLocation("header"), cookie: byLocation("cookie") }, accept: acceptFor(operation) };
    shapes.set(operation, shape);
  }
  return shape;
}

export async function buildRequest(inputs: BuildInputs): Promise<OutgoingRequest> {
  const { target, operation, call } = inputs;
  const shape = shapeOf(operation);
  const params = (location: Parameter["in"]) => shape.params[location];

  // Path: the template with each parameter serialised and encoded, each segment holding a parameter checked
  // to be one literal segment, and the parsed URL checked to be the base URL plus the template's segments.
  const pathParams = params("path");
  const template = `${operation.method.toUpperCase()} ${operation.path}`;
  const path = operation.path
    .split("/")
    .map((segment) => {
      const names: string[] = [];
      const built = segment.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const value = inputs.pathParams[name];
        if (value === undefined || value === null) throw new CallFailure("CallRejected", `missing path parameter "${name}" for ${template}`);
        names.push(name);
        // allowReserved is a query parameter's option: in a path it would let "/" and "?" through.
        return serializePathParam(name, value, { ...styleOf(pathParams.get(name)), allowReserved: false });
      });
      if (names.length) checkParameterSegment(built, names, template);
      return built;
    })
    .join("/");
  const url = new URL(joinUrl(target.baseUrl, path));
  checkUnderBase(url, target.baseUrl, templateSegmentCount(operation.path), template);

  // Query: declared parameters in their style; undeclared ones as plain form. The credential's own name is reserved.
  const slots = inputs.credentialSlots ?? { headers: [], query: [], cookies: [] };
  for (const name of slots.query) if (Object.hasOwn(call.query, name)) throw reservedSlot(`query parameter "${name}"`);
  for (const name of slots.cookies) if (Object.hasOwn(call.cookies, name)) throw reservedSlot(`cookie "${name}"`);
  const queryParams = params("query");
  const pieces = Object.entries(call.query).flatMap(([name, value]) => serializeQueryParam(name, value, styleOf(queryParams.get(name))));
  url.search = pieces.join("&");

  // Headers: declared header parameters and the allowlist; never reserved ones.
  const headers: Record<string, string> = { "user-agent": USER_AGENT };
  const declared = params("header");
  const allow = new Set(target.config.passthroughHeaders.map((h) => h.toLowerCase()));
  const reserved = new Set([...RESERVED_HEADERS, ...slots.headers]);
  for (const [rawName, value] of Object.entries(call.headers)) {
    const name = rawName.toLowerCase();
    if (reserved.has(name)) throw reservedSlot(`header "${rawName}"`);
    if (!declared.has(name) && !allow.has(name)) {
      throw new CallFailure("CallRejected", `header "${rawName}" is not a parameter of ${operation.id} and not in API ${target.name}'s passthrough headers (${[...allow].join(", ") || "none"}); a person can allow it in the API's settings`);
    }
    headers[name] = declared.has(name) ? serializeHeaderParam(value, styleOf(declared.get(name))) : value;
  }
  const cookies = Object.entries(call.cookies).map(([name, value]) => {
    if (!HTTP_TOKEN.test(name)) throw new CallFailure("CallRejected", `cookie name ${JSON.stringify(name.slice(0, 60))} is not an HTTP token (letters, digits and !#$%&'*+.^_\`|~-); nothing was sent`);
    return serializeCookieParam(name, value);
  });
  if (cookies.length) headers.cookie = cookies.join("; ");
  if (!headers.accept) headers.accept = shape.accept;

  const out: OutgoingRequest = { method: operation.method.toUpperCase(), url, headers };
  if (call.body !== undefined) {
    const encoded = await encodeBody(operation, call);
    out.body = encoded.body;
    out.bodyPreview = encoded.bodyPreview;
    out.headers["content-type"] = encoded.contentType;
  }

  const idempotencyHeader = target.config.autoIdempotencyHeader?.toLowerCase();
  if (idempotencyHeader && isWrite(operation)) {
    const key = inputs.idempotencyKey ?? headers[idempotencyHeader] ?? randomUUID();
    out.headers[idempotencyHeader] = key;
    out.idempotencyKey = key;
  }
  checkHeaderFields(out.headers);
  return out;
}

function reservedSlot(what: string): CallFailure {
  return new CallFailure("CallRejected", `${what} is reserved: credentials are attached by the workbench, never by programs; nothing was sent`);
}

/** An HTTP token: what a header or cookie name may be. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value may hold: no CR, LF, NUL or other controls but tab, and only Latin-1 (a ByteString). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Every header as fetch will see it, checked here so that a bad one is refused
 * with words of ours, naming the header but never quoting its value: fetch's own
 * error quotes the whole value, credential included.
 */
export function checkHeaderFields(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HTTP_TOKEN.test(name)) throw new CallFailure("CallRejected", `header name ${JSON.stringify(name.slice(0, 60))} is not an HTTP token (letters, digits and !#$%&'*+.^_\`|~-); nothing was sent`);
    if (!HEADER_VALUE.test(value)) throw new CallFailure("CallRejected", `the value of header "${name}" holds a line break, a control character or a character outside Latin-1; nothing was sent`);
  }
}

/** `https://h/v2` + `/pets` → `https://h/v2/pets` (the base path prefix is kept). */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

function acceptFor(operation: Operation): string {
  const types = new Set(Object.values(operation.responses).flatMap((r) => Object.keys(r.content ?? {})));
  if (!types.size || [...types].some(isJsonLike)) return "application/json, */*;q=0.8";
  return [...types].slice(0, 4).join(", ");
}

interface EncodedBody {
  body: string | Uint8Array;
  bodyPreview: string;
  contentType: string;
}

async function encodeBody(operation: Operation, call: CallRequest): Promise<EncodedBody> {
  const available = Object.keys(operation.requestBody?.content ?? {});
  const mediaType = call.contentType ?? pickMediaType(available) ?? "application/json";
  const base = mediaType.split(";")[0]!.trim().toLowerCase();
  const body = call.body as JsonValue;
  if (typeof body === "string" && !isJsonLike(base)) return { body, bodyPreview: body, contentType: mediaType };
  if (base === "application/x-www-form-urlencoded") {
    const text = formEncode(body, operation);
    return { body: text, bodyPreview: text, contentType: mediaType };
  }
  if (base === "multipart/form-data") {
    const encoded = await multipartEncode(body);
    return { body: encoded.bytes, bodyPreview: encoded.preview, contentType: encoded.contentType };
  }
  if (!isJsonLike(base) && isBinaryPart(body)) {
    const bytes = partBytes(body);
    return { body: bytes, bodyPreview: `<${bytes.byteLength} bytes>`, contentType: mediaType };
  }
  const text = JSON.stringify(body);
  return { body: text, bodyPreview: text, contentType: isJsonLike(base) ? mediaType : "application/json" };
}

function formEncode(body: JsonValue, operation: Operation): string {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new CallFailure("CallRejected", "a form body must be an object of fields");
  }
  const encoding = operation.requestBody?.content["application/x-www-form-urlencoded"]?.encoding ?? {};
  return Object.entries(body)
    .flatMap(([name, value]) => serializeQueryParam(name, value, { style: encoding[name]?.style ?? "form", explode: encoding[name]?.explode ?? true }))
    .join("&");
}

/** A file part in a multipart body: `{filename, contentType, base64}` or `{filename, contentType, text}`. */
function isBinaryPart(value: JsonValue): value is { filename?: string; contentType?: string; base64?: string; text?: string } {
  return !!value && typeof value === "object" && !Array.isArray(value) && (typeof value.base64 === "string" || (typeof value.text === "string" && typeof value.filename === "string"));
}

function partBytes(part: { base64?: string; text?: string }): Uint8Array {
  return part.base64 !== undefined ? new Uint8Array(Buffer.from(part.base64, "base64")) : new TextEncoder().encode(part.text ?? "");
}

async function multipartEncode(body: JsonValue): Promise<{ bytes: Uint8Array; contentType: string; preview: string }> {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new CallFailure("CallRejected", "a multipart body must be an object of parts");
  const form = new FormData();
  const preview: string[] = [];
  const add = (name: string, value: JsonValue) => {
    if (isBinaryPart(value)) {
      const bytes = partBytes(value);
      const blob = new Blob([bytes], { type: value.contentType ?? "application/octet-stream" });
      form.append(name, blob, value.filename ?? name);
      preview.push(`${name}: <file ${value.filename ?? name}, ${bytes.byteLength} bytes, ${blob.type}>`);
    } else if (value !== null && typeof value === "object") {
      form.append(name, new Blob([JSON.stringify(value)], { type: "application/json" }));
      preview.push(`${name}: ${JSON.stringify(value)}`);
    } else if (value !== null) {
      form.append(name, String(value));
      preview.push(`${name}: ${String(value)}`);
    }
  };
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) value.forEach((v) => add(name, v));
    else add(name, value);
  }
  const encoded = new Response(form);
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get("content-type")!, preview: preview.join("\n") };
}
