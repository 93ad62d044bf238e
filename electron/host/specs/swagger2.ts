/**
 * Swagger 2.0 quirks fixed by hand before `@scalar/openapi-upgrader` runs,
 * because the upgrader assumes a valid document and gets these wrong:
 *
 * - servers: it defaults a missing `schemes` to plain http; we prefer https,
 *   and say so (the spec's rule, "the scheme the spec was served with", is
 *   unknowable for a file). Without `host` the server stays relative, to be
 *   resolved against the URL the spec came from.
 * - parameters used through `$ref: '#/parameters/X'`: a referenced body or
 *   formData parameter would stay in the parameter list as a ref to a request
 *   body, and several formData refs could not merge into one form. We inline them.
 * - path-level parameters: it applies a path-level body parameter only to the
 *   methods listed after `parameters`. We merge path-level parameters into each
 *   operation (the operation's own win on name + in).
 * - malformed shapes (a parameter without `in`, `null` operations, `consumes`
 *   as a string, a non-object security definition) make it throw or iterate a
 *   string's characters. We drop them with a warning first.
 */
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { HTTP_METHODS } from "../../../shared/artifact.ts";
import { describeValue, isObject, isStringArray } from "./json-guards.ts";
import { childPointer, parseRef, valueAt } from "./pointer.ts";
import type { RepairReport } from "./report.ts";

export interface Swagger2Facts {
  servers: string[];
  bodyParameters: number;
  formParameters: number;
  /** Operations with a required formData parameter: their form body is required (the upgrader leaves it optional). */
  requiredForms: { path: string; method: string }[];
}

const PARAMETER_LOCATIONS = new Set(["query", "header", "path", "formData", "body"]);

export function prepareSwagger2(doc: JsonObject, report: RepairReport): Swagger2Facts {
  const servers = swaggerServers(doc, report);
  doc.servers = servers.map((url) => ({ url }));
  delete doc.host;
  delete doc.basePath;
  delete doc.schemes;

  checkMediaTypes(doc, "", report);
  if (doc.parameters !== undefined) {
    if (isObject(doc.parameters)) {
      for (const [name, param] of Object.entries(doc.parameters)) {
        if (!usableParameter(param, childPointer("/parameters", name), report)) delete doc.parameters[name];
      }
    } else {
      report.dropped("/parameters", "parameters", `it must be an object of named parameters, not ${describeValue(doc.parameters)}`);
      delete doc.parameters;
    }
  }
  if (doc.securityDefinitions !== undefined && isObject(doc.securityDefinitions)) {
    for (const [name, scheme] of Object.entries(doc.securityDefinitions)) {
      if (!isObject(scheme)) {
        report.dropped(childPointer("/securityDefinitions", name), "security definition", `it must be an object, not ${describeValue(scheme)}`);
        delete doc.securityDefinitions[name];
      }
    }
  } else if (doc.securityDefinitions !== undefined) {
    report.dropped("/securityDefinitions", "securityDefinitions", `it must be an object, not ${describeValue(doc.securityDefinitions)}`);
    delete doc.securityDefinitions;
  }

  const facts: Swagger2Facts = { servers, bodyParameters: 0, formParameters: 0, requiredForms: [] };
  if (!isObject(doc.paths)) return facts;
  for (const [path, item] of Object.entries(doc.paths)) {
    const itemPointer = childPointer("/paths", path);
    if (Array.isArray(item)) {
      // The upgrader would read each element as an operation; the normalize stage never sees it.
      report.dropped(itemPointer, "path item", "it must be an object of operations, not an array");
      delete doc.paths[path];
      continue;
    }
    if (!isObject(item)) continue;
    const shared = parameterList(doc, item.parameters, childPointer(itemPointer, "parameters"), report);
    delete item.parameters;
    keepOnlyOperations(item, itemPointer, report);
    for (const method of HTTP_METHODS) {
      if (!Object.hasOwn(item, method)) continue;
      const op = item[method];
      const opPointer = childPointer(itemPointer, method);
      if (!isObject(op)) {
        report.dropped(opPointer, "operation", `it must be an object, not ${describeValue(op)}`);
        delete item[method];
        continue;
      }
      checkMediaTypes(op, opPointer, report);
      dropNonObjectResponses(op, opPointer, report);
      const own = parameterList(doc, op.parameters, childPointer(opPointer, "parameters"), report);
      const merged = mergeByNameAndLocation(shared, own);
      if (merged.length > 0) op.parameters = merged;
      else delete op.parameters;
      facts.bodyParameters += merged.filter((p) => p.in === "body").length;
      facts.formParameters += merged.filter((p) => p.in === "formData").length;
      if (merged.some((p) => p.in === "formData" && p.required === true)) facts.requiredForms.push({ path, method });
    }
  }
  return facts;
}

function swaggerServers(doc: JsonObject, report: RepairReport): string[] {
  let basePath = "";
  if (typeof doc.basePath === "string" && doc.basePath !== "") {
    basePath = doc.basePath.startsWith("/") ? doc.basePath : `/${doc.basePath}`;
    if (basePath !== doc.basePath) report.add("repaired-field", "/basePath", `basePath must start with "/"; read as ${JSON.stringify(basePath)}`);
  } else if (doc.basePath !== undefined && doc.basePath !== "") {
    report.dropped("/basePath", "basePath", `it must be a string, not ${describeValue(doc.basePath)}`);
  }
  basePath = basePath.replace(/\/+$/, "");

  if (doc.host === undefined) return [basePath || "/"];
  if (typeof doc.host !== "string" || doc.host.trim() === "") {
    report.dropped("/host", "host", `it must be a host name, not ${describeValue(doc.host)}`);
    return [basePath || "/"];
  }
  let host = doc.host.trim();
  const withScheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(host);
  if (withScheme) {
    report.add("repaired-field", "/host", `host must not include a scheme; read ${JSON.stringify(host)} as ${JSON.stringify(host.slice(withScheme[0].length))}`);
    host = host.slice(withScheme[0].length);
  }
  host = host.replace(/\/+$/, "");

  const declared = Array.isArray(doc.schemes) ? doc.schemes.filter((s): s is string => typeof s === "string").map((s) => s.toLowerCase()) : [];
  let schemes = ["https", "http"].filter((s) => declared.includes(s));
  if (schemes.length === 0) {
    schemes = ["https"];
    const why = declared.length > 0 ? `schemes lists no http or https (${declared.join(", ")})` : "the spec gives no schemes";
    report.add("assumed-scheme", "/schemes", `${why}; assumed https://${host}${basePath} (give a base URL when registering if that is wrong)`);
  }
  return schemes.map((scheme) => `${scheme}://${host}${basePath}`);
}

/** A parameter list with refs inlined (cloned: the upgrader edits parameters in place) and unusable entries dropped. */
function parameterList(doc: JsonObject, value: JsonValue | undefined, pointer: string, report: RepairReport): JsonObject[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report.dropped(pointer, "parameters", `it must be a list, not ${describeValue(value)}`);
    return [];
  }
  const out: JsonObject[] = [];
  value.forEach((entry, i) => {
    const at = childPointer(pointer, i);
    const param = isObject(entry) && typeof entry.$ref === "string" ? inlineRef(doc, entry.$ref) ?? entry : entry;
    if (isObject(param) && typeof param.$ref === "string") {
      out.push({ ...param }); // unresolved: the ref stage reports it
    } else if (usableParameter(param, at, report)) {
      out.push(structuredClone(param));
    }
  });
  return out;
}

function inlineRef(doc: JsonObject, ref: string): JsonObject | undefined {
  const parsed = parseRef(ref);
  if (parsed.kind !== "internal") return undefined;
  const target = valueAt(doc, parsed.tokens);
  return isObject(target) && typeof target.$ref !== "string" ? target : undefined;
}

function usableParameter(param: JsonValue | undefined, pointer: string, report: RepairReport): param is JsonObject {
  if (!isObject(param)) {
    report.dropped(pointer, "parameter", `it must be an object, not ${describeValue(param)}`);
    return false;
  }
  if (typeof param.$ref === "string") return true;
  if (typeof param.in !== "string" || !PARAMETER_LOCATIONS.has(param.in)) {
    report.dropped(pointer, "parameter", `"in" must be one of query, header, path, formData, body, not ${describeValue(param.in)}`);
    return false;
  }
  if (typeof param.name !== "string" || param.name === "") {
    report.dropped(pointer, "parameter", `it has no name`);
    return false;
  }
  return true;
}

function mergeByNameAndLocation(shared: JsonObject[], own: JsonObject[]): JsonObject[] {
  const key = (p: JsonObject) => `${String(p.in)}\u0000${String(p.name)}`;
  const ownKeys = new Set(own.map(key));
  return [...shared.filter((p) => !ownKeys.has(key(p))).map((p) => structuredClone(p)), ...own];
}

/**
 * The upgrader treats every key of a path item but `parameters` as an
 * operation, so an extension object or a null there makes it throw. Keep the
 * methods and the fields the normalize stage reads; extensions are not used.
 */
function keepOnlyOperations(item: JsonObject, pointer: string, report: RepairReport): void {
  for (const [key, value] of Object.entries(item)) {
    const at = childPointer(pointer, key);
    if ((HTTP_METHODS as readonly string[]).includes(key.toLowerCase())) {
      if (value === null) {
        report.dropped(at, "operation", "it must be an object, not null");
        delete item[key];
      }
    } else if (key === "servers" && !Array.isArray(value)) {
      report.dropped(at, "servers", `they must be a list of servers, not ${describeValue(value)}`);
      delete item[key];
    } else if (key === "$ref" || key === "summary" || key === "description") {
      if (typeof value !== "string") {
        report.dropped(at, key, `it must be a string, not ${describeValue(value)}`);
        delete item[key];
      }
    } else if (key !== "servers") {
      delete item[key];
    }
  }
}

function dropNonObjectResponses(op: JsonObject, pointer: string, report: RepairReport): void {
  if (op.responses !== undefined && !isObject(op.responses)) {
    report.dropped(childPointer(pointer, "responses"), "responses", `they must map status codes to responses, not ${describeValue(op.responses)}`);
    delete op.responses;
    return;
  }
  if (!isObject(op.responses)) return;
  for (const [status, response] of Object.entries(op.responses)) {
    if (isObject(response)) continue;
    report.dropped(childPointer(pointer, "responses", status), "response", `it must be an object, not ${describeValue(response)}`);
    delete op.responses[status];
  }
}

function checkMediaTypes(holder: JsonObject, pointer: string, report: RepairReport): void {
  for (const field of ["consumes", "produces"] as const) {
    if (holder[field] === undefined || isStringArray(holder[field])) continue;
    report.dropped(childPointer(pointer, field), field, `it must be a list of media types, not ${describeValue(holder[field])}`);
    delete holder[field];
  }
}
