/**
 * Step 0: what did the program ask for? Two call forms reach the host:
 *   apis.<api>.request({method, path, query, headers, body, contentType})
 *   apis.<api>.<operationId>({...parameters, body, headers, contentType})
 * Both are normalised into one CallRequest; anything malformed is
 * `CallRejected` with a message that says which argument was wrong.
 */
import { HTTP_METHODS, type HttpMethod, type Operation } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { CallFailure, type CallRequest } from "./types.ts";

type Input = Record<string, JsonValue>;

function asObject(value: JsonValue | undefined, what: string): Input {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new CallFailure("CallRejected", `${what} must be an object, got ${describe(value)}`);
  }
  return value;
}

function describe(value: JsonValue | undefined): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `the string ${JSON.stringify(value.slice(0, 40))}` : `a ${typeof value}`;
}

function stringMap(value: JsonValue | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(asObject(value, what))) {
    if (v === null || v === undefined) continue;
    if (typeof v === "object") throw new CallFailure("CallRejected", `${what}.${key} must be a string, number or boolean, got ${describe(v)}`);
    out[key] = String(v);
  }
  return out;
}

function contentTypeOf(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !/^[\w.+-]+\/[\w.+-]+/.test(value)) {
    throw new CallFailure("CallRejected", `contentType must be a media type like "application/json", got ${describe(value)}`);
  }
  return value;
}

const REQUEST_KEYS = new Set(["method", "path", "query", "headers", "cookies", "body", "contentType"]);

/** `apis.<api>.request({...})`. */
export function parseRequestForm(api: string, raw: JsonValue): CallRequest {
  const input = asObject(raw, `apis.${api}.request() argument`);
  for (const key of Object.keys(input)) {
    if (!REQUEST_KEYS.has(key)) {
      throw new CallFailure("CallRejected", `apis.${api}.request() got an unknown option "${key}"; it takes method, path, query, headers, cookies, body, contentType`);
    }
  }
  const method = typeof input.method === "string" ? input.method.toLowerCase() : "get";
  if (!HTTP_METHODS.includes(method as HttpMethod)) {
    throw new CallFailure("CallRejected", `method must be one of ${HTTP_METHODS.map((m) => m.toUpperCase()).join(", ")}, got ${describe(input.method)}`);
  }
  if (typeof input.path !== "string" || !input.path.startsWith("/")) {
    throw new CallFailure("CallRejected", `path must be a string starting with "/", got ${describe(input.path)}`);
  }
  const [rawPath, queryString] = splitOnce(input.path, "?");
  // A vault reference holds a "/" (`⟦vault:item/field⟧`): encoded, it stays inside one segment when matched.
  const pathOnly = rawPath.replace(/⟦vault:[^⟧]*⟧/g, (reference) => encodeURIComponent(reference));
  const query: Record<string, JsonValue> = {};
  if (queryString) {
    for (const [key, value] of new URLSearchParams(queryString)) {
      const prior = query[key];
      query[key] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
    }
  }
  Object.assign(query, asObject(input.query, "query"));
  const request: CallRequest = {
    api,
    method: method as HttpMethod,
    path: pathOnly,
    pathParams: {},
    query,
    headers: stringMap(input.headers, "headers"),
    cookies: stringMap(input.cookies, "cookies"),
  };
  if (input.body !== undefined) request.body = input.body;
  const contentType = contentTypeOf(input.contentType);
  if (contentType) request.contentType = contentType;
  return request;
}

function splitOnce(text: string, sep: string): [string, string | undefined] {
  const at = text.indexOf(sep);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** `apis.<api>.<operationId>({...})`: parameters by name, plus body, headers, contentType. */
export function parseBindingForm(api: string, operation: Operation, raw: JsonValue): CallRequest {
  const input = asObject(raw, `apis.${api}.${operation.id}() argument`);
  const request: CallRequest = { api, operationId: operation.id, pathParams: {}, query: {}, headers: {}, cookies: {} };
  const params = new Map(operation.parameters.map((p) => [p.name, p]));
  for (const [key, value] of Object.entries(input)) {
    const param = params.get(key) ?? operation.parameters.find((p) => p.in === "header" && p.name.toLowerCase() === key.toLowerCase());
    if (param) {
      if (value === null || value === undefined) continue;
      if (param.in === "path") request.pathParams[param.name] = value;
      else if (param.in === "query") request.query[param.name] = value;
      else if (param.in === "header") request.headers[param.name.toLowerCase()] = scalarText(value, param.name);
      else request.cookies[param.name] = scalarText(value, param.name);
      continue;
    }
    if (key === "body") request.body = value;
    else if (key === "headers") Object.assign(request.headers, stringMap(value, "headers"));
    else if (key === "contentType") {
      const contentType = contentTypeOf(value);
      if (contentType) request.contentType = contentType;
    } else {
      const known = [...params.keys(), ...(operation.requestBody ? ["body"] : [])];
      throw new CallFailure(
        "CallRejected",
        `${operation.id}() has no parameter "${key}"; it takes ${known.length ? known.join(", ") : "no parameters"}${known.length ? "" : ""} (plus headers, contentType)`,
      );
    }
  }
  return request;
}

function scalarText(value: JsonValue, name: string): string {
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  if (value === null) throw new CallFailure("CallRejected", `${name} cannot be null`);
  return String(value);
}
