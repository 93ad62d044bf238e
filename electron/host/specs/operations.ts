/**
 * Stage 4b: the operation index. Walks `paths` (following path item refs),
 * builds each operation with its merged parameters, body, responses, inherited
 * security and servers, then gives every operation its id. A path that does not
 * start with `/` is repaired; an operation that is not an object is dropped;
 * both are reported, so no operation goes missing without a word.
 */
import { HTTP_METHODS, type HttpMethod, type Operation, type Parameter, type SecurityRequirement, type SecurityScheme, type ServerInfo } from "../../../shared/artifact.ts";
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { describeValue, isObject } from "./json-guards.ts";
import { childPointer } from "./pointer.ts";
import { optionalBoolean, optionalString, type NormalizeContext } from "./context.ts";
import { normalizeRequestBody, normalizeResponses } from "./content.ts";
import { assignOperationIds } from "./operation-ids.ts";
import { mergeParameters, normalizeParameterList } from "./parameters.ts";
import { normalizeSecurity } from "./security.ts";
import { normalizeServers } from "./servers.ts";

export interface DocumentDefaults {
  security: SecurityRequirement[];
  securitySchemes: Record<string, SecurityScheme>;
}

type Draft = Omit<Operation, "id"> & { pointer: string };

export function normalizeOperations(ctx: NormalizeContext, defaults: DocumentDefaults): Operation[] {
  const paths = ctx.doc.paths;
  if (paths === undefined) return [];
  if (!isObject(paths)) {
    ctx.report.dropped("/paths", "paths", `it must map paths to path items, not ${describeValue(paths)}; the spec has no usable operations`);
    return [];
  }
  const drafts: Draft[] = [];
  const seenPaths = new Set(Object.keys(paths));
  for (const [rawPath, rawItem] of Object.entries(paths)) {
    const pointer = childPointer("/paths", rawPath);
    if (rawPath.startsWith("x-")) continue;
    let path = rawPath.trim();
    if (!path.startsWith("/")) {
      path = `/${path}`;
      if (seenPaths.has(path)) {
        ctx.report.dropped(pointer, "path", `a path must start with "/", and ${JSON.stringify(path)} is already in the spec`);
        continue;
      }
      ctx.report.add("repaired-field", pointer, `a path must start with "/"; read ${JSON.stringify(rawPath)} as ${JSON.stringify(path)}`);
    }
    const resolved = ctx.refs.follow(rawItem, pointer, "path item");
    if (!resolved) continue;
    if (!isObject(resolved.value)) {
      ctx.report.dropped(pointer, "path item", `it must be an object of operations, not ${describeValue(resolved.value)}`);
      continue;
    }
    drafts.push(...pathItemOperations(ctx, defaults, path, resolved.value, resolved.pointer));
  }
  reportAmbiguousPaths(ctx, drafts);
  const ids = assignOperationIds(drafts, ctx.report);
  return drafts.map(({ pointer: _pointer, ...op }, i) => ({ id: ids[i]!, ...op }));
}

/** `/pets/{id}` and `/pets/{petId}` match the same requests; the spec forbids it and a call could reach either. */
function reportAmbiguousPaths(ctx: NormalizeContext, drafts: Draft[]): void {
  const seen = new Map<string, Draft>();
  for (const draft of drafts) {
    const key = `${draft.method} ${draft.path.replace(/\{[^{}]*\}/g, "{}")}`;
    const first = seen.get(key);
    if (!first) seen.set(key, draft);
    else ctx.report.add("ambiguous-path", draft.pointer, `${draft.method.toUpperCase()} ${draft.path} matches the same requests as ${first.method.toUpperCase()} ${first.path}; calls by path go to the first`);
  }
}

function pathItemOperations(ctx: NormalizeContext, defaults: DocumentDefaults, path: string, item: JsonObject, pointer: string): Draft[] {
  const shared = normalizeParameterList(ctx, item.parameters, childPointer(pointer, "parameters"));
  const servers = normalizeServers(ctx, item.servers, childPointer(pointer, "servers"));
  const drafts: Draft[] = [];
  for (const key of Object.keys(item)) {
    const method = key.toLowerCase() as HttpMethod;
    if (!HTTP_METHODS.includes(method)) continue;
    const at = childPointer(pointer, key);
    if (key !== method) {
      if (Object.hasOwn(item, method)) {
        ctx.report.dropped(at, "operation", `methods are lower case, and ${method} is already defined for this path`);
        continue;
      }
      ctx.report.add("repaired-field", at, `methods are lower case; read ${key} as ${method}`);
    }
    const op = item[key];
    if (!isObject(op)) {
      ctx.report.dropped(at, `operation ${method.toUpperCase()} ${path}`, `it must be an object, not ${describeValue(op)}`);
      continue;
    }
    drafts.push(buildOperation(ctx, defaults, { method, path, op, pointer: at, shared, servers }));
  }
  return drafts;
}

interface OperationInput {
  method: HttpMethod;
  path: string;
  op: JsonObject;
  pointer: string;
  shared: Parameter[];
  servers: ServerInfo[] | undefined;
}

function buildOperation(ctx: NormalizeContext, defaults: DocumentDefaults, input: OperationInput): Draft {
  const { method, path, op, pointer } = input;
  const draft: Draft = { method, path, tags: tags(ctx, op.tags, childPointer(pointer, "tags")), deprecated: optionalBoolean(ctx, op, "deprecated", pointer) ?? false, parameters: [], responses: {}, security: defaults.security, pointer };
  const operationId = op.operationId;
  if (typeof operationId === "string" && operationId.trim() !== "") draft.operationId = operationId;
  else if (operationId !== undefined) ctx.report.dropped(childPointer(pointer, "operationId"), "operationId", `it must be a non-empty string, not ${describeValue(operationId)}`);
  const summary = optionalString(ctx, op, "summary", pointer);
  if (summary !== undefined) draft.summary = summary;
  const description = optionalString(ctx, op, "description", pointer);
  if (description !== undefined) draft.description = description;

  const own = normalizeParameterList(ctx, op.parameters, childPointer(pointer, "parameters"));
  draft.parameters = mergeParameters(ctx, input.shared, own, path, pointer);
  const body = normalizeRequestBody(ctx, op.requestBody, childPointer(pointer, "requestBody"));
  if (body) draft.requestBody = body;
  draft.responses = normalizeResponses(ctx, op.responses, childPointer(pointer, "responses"));
  draft.security = normalizeSecurity(ctx, op.security, childPointer(pointer, "security"), defaults.securitySchemes) ?? defaults.security;
  if (isObject(op.callbacks) && Object.keys(op.callbacks).length > 0) {
    ctx.report.add("not-callable", childPointer(pointer, "callbacks"), `the operation describes ${Object.keys(op.callbacks).length} callback(s): requests the API makes to you, so they are not operations to call`);
  }
  const servers = normalizeServers(ctx, op.servers, childPointer(pointer, "servers")) ?? input.servers;
  if (servers && servers.length > 0) draft.servers = servers;
  return draft;
}

function tags(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    if (typeof value === "string") {
      ctx.report.add("repaired-field", pointer, `tags must be a list; read ${JSON.stringify(value)} as [${JSON.stringify(value)}]`);
      return [value];
    }
    ctx.report.dropped(pointer, "tags", `they must be a list of names, not ${describeValue(value)}`);
    return [];
  }
  const out: string[] = [];
  value.forEach((tag, i) => {
    if (typeof tag === "string") out.push(tag);
    else ctx.report.dropped(childPointer(pointer, i), "tag", `it must be a string, not ${describeValue(tag)}`);
  });
  return out;
}
