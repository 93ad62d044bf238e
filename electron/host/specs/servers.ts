/**
 * Server lists (document, path and operation level). A server whose URL uses a
 * `{variable}` without a default cannot be turned into a base URL, which would
 * only surface when the first call fails; it is reported here instead.
 */
import type { ServerInfo } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { describeValue, isObject, isStringArray, setOwn } from "./json-guards.ts";
import { childPointer } from "./pointer.ts";
import type { NormalizeContext } from "./context.ts";

export function normalizeServers(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): ServerInfo[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    ctx.report.dropped(pointer, "servers", `it must be a list of servers, not ${describeValue(value)}`);
    return undefined;
  }
  const servers: ServerInfo[] = [];
  value.forEach((entry, i) => {
    const at = childPointer(pointer, i);
    if (!isObject(entry) || typeof entry.url !== "string") {
      ctx.report.dropped(at, "server", isObject(entry) ? `its url must be a string, not ${describeValue(entry.url)}` : `it must be an object, not ${describeValue(entry)}`);
      return;
    }
    const server: ServerInfo = { url: entry.url.trim() };
    if (typeof entry.description === "string") server.description = entry.description;
    const variables = serverVariables(ctx, entry.variables, childPointer(at, "variables"));
    if (variables) server.variables = variables;
    for (const [, name] of server.url.matchAll(/\{([^{}]*)\}/g)) {
      if (!variables || !Object.hasOwn(variables, name!)) {
        ctx.report.add("undefined-server-variable", childPointer(at, "url"), `the URL uses {${name}} but the server defines no such variable; give a base URL when registering`);
      }
    }
    servers.push(server);
  });
  return servers;
}

function serverVariables(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): ServerInfo["variables"] {
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    ctx.report.dropped(pointer, "server variables", `they must be an object, not ${describeValue(value)}`);
    return undefined;
  }
  const out: NonNullable<ServerInfo["variables"]> = {};
  for (const [name, variable] of Object.entries(value)) {
    const at = childPointer(pointer, name);
    if (!isObject(variable)) {
      ctx.report.dropped(at, "server variable", `it must be an object, not ${describeValue(variable)}`);
      continue;
    }
    let fallback = variable.default;
    if (typeof fallback === "number" || typeof fallback === "boolean") {
      ctx.report.add("repaired-field", childPointer(at, "default"), `a server variable's default must be a string; read ${fallback} as "${fallback}"`);
      fallback = String(fallback);
    }
    if (typeof fallback !== "string") {
      ctx.report.dropped(at, "server variable", `it has no default value (found ${describeValue(fallback)})`);
      continue;
    }
    const entry: NonNullable<ServerInfo["variables"]>[string] = { default: fallback };
    if (isStringArray(variable.enum)) entry.enum = variable.enum;
    if (typeof variable.description === "string") entry.description = variable.description;
    setOwn(out, name, entry);
  }
  return out;
}
