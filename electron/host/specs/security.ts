/**
 * Security schemes and requirements. The proxy attaches credentials from
 * these, so a scheme missing the field it needs (an apiKey without `in`, an
 * OAuth2 flow without `tokenUrl`) is dropped with a warning rather than
 * failing later at the first call; a requirement naming a scheme that does
 * not exist is kept (it is what the spec says) and reported.
 */
import type { SecurityRequirement, SecurityScheme } from "../../../shared/artifact.ts";
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { describeValue, isObject, isStringArray, setOwn } from "./json-guards.ts";
import { childPointer } from "./pointer.ts";
import type { NormalizeContext } from "./context.ts";

type OAuthFlows = Extract<SecurityScheme, { type: "oauth2" }>["flows"];

export function normalizeSecuritySchemes(ctx: NormalizeContext): Record<string, SecurityScheme> {
  const components = isObject(ctx.doc.components) ? ctx.doc.components : undefined;
  const value = components?.securitySchemes;
  const out: Record<string, SecurityScheme> = {};
  if (value === undefined) return out;
  if (!isObject(value)) {
    ctx.report.dropped("/components/securitySchemes", "securitySchemes", `it must be an object of named schemes, not ${describeValue(value)}`);
    return out;
  }
  for (const [name, entry] of Object.entries(value)) {
    const pointer = childPointer("/components/securitySchemes", name);
    const scheme = ctx.refs.resolveShared(entry, pointer, "security scheme", "securityScheme", (v, at) => buildScheme(ctx, v, at));
    if (scheme) setOwn(out, name, scheme);
  }
  return out;
}

function buildScheme(ctx: NormalizeContext, value: JsonValue, pointer: string): SecurityScheme | undefined {
  const drop = (why: string) => void ctx.report.dropped(pointer, "security scheme", why);
  if (!isObject(value)) return drop(`it must be an object, not ${describeValue(value)}`);
  const description = typeof value.description === "string" ? { description: value.description } : {};
  switch (value.type) {
    case "http":
      if (typeof value.scheme !== "string" || value.scheme === "") return drop("an http scheme needs a scheme name such as bearer or basic");
      return { type: "http", scheme: value.scheme.toLowerCase(), ...(typeof value.bearerFormat === "string" ? { bearerFormat: value.bearerFormat } : {}), ...description };
    case "apiKey":
      if (typeof value.name !== "string" || value.name === "") return drop("an apiKey scheme needs the name of its header, query parameter or cookie");
      if (value.in !== "header" && value.in !== "query" && value.in !== "cookie") return drop(`an apiKey scheme's "in" must be header, query or cookie, not ${describeValue(value.in)}`);
      return { type: "apiKey", name: value.name, in: value.in, ...description };
    case "oauth2": {
      const flows = oauthFlows(ctx, value.flows, childPointer(pointer, "flows"));
      if (!flows) return drop("an oauth2 scheme needs at least one usable flow");
      return { type: "oauth2", flows, ...description };
    }
    case "openIdConnect":
      if (typeof value.openIdConnectUrl !== "string") return drop("an openIdConnect scheme needs openIdConnectUrl");
      return { type: "openIdConnect", openIdConnectUrl: value.openIdConnectUrl, ...description };
    case "mutualTLS":
      return { type: "mutualTLS", ...description };
    default:
      return drop(`its type must be http, apiKey, oauth2, openIdConnect or mutualTLS, not ${describeValue(value.type)}`);
  }
}

const FLOW_FIELDS: Record<keyof OAuthFlows, ("authorizationUrl" | "tokenUrl" | "deviceAuthorizationUrl")[]> = {
  clientCredentials: ["tokenUrl"],
  authorizationCode: ["authorizationUrl", "tokenUrl"],
  implicit: ["authorizationUrl"],
  password: ["tokenUrl"],
  deviceAuthorization: ["deviceAuthorizationUrl", "tokenUrl"],
};

function oauthFlows(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string): OAuthFlows | undefined {
  if (!isObject(value)) return undefined;
  const flows: Record<string, unknown> = {};
  for (const [kind, flow] of Object.entries(value)) {
    const at = childPointer(pointer, kind);
    const needed = Object.hasOwn(FLOW_FIELDS, kind) ? FLOW_FIELDS[kind as keyof OAuthFlows] : undefined;
    if (!needed) {
      if (!kind.startsWith("x-")) ctx.report.dropped(at, "oauth2 flow", `${JSON.stringify(kind)} is not an OAuth2 flow (clientCredentials, authorizationCode, implicit, password, deviceAuthorization)`);
      continue;
    }
    if (!isObject(flow)) {
      ctx.report.dropped(at, "oauth2 flow", `it must be an object, not ${describeValue(flow)}`);
      continue;
    }
    const missing = needed.filter((field) => typeof flow[field] !== "string");
    if (missing.length > 0) {
      ctx.report.dropped(at, "oauth2 flow", `it needs ${missing.join(" and ")}`);
      continue;
    }
    const scopes: Record<string, string> = {};
    if (isObject(flow.scopes)) for (const [scope, text] of Object.entries(flow.scopes)) setOwn(scopes, scope, typeof text === "string" ? text : "");
    flows[kind] = { ...Object.fromEntries(needed.map((field) => [field, flow[field]])), scopes };
  }
  return Object.keys(flows).length > 0 ? (flows as OAuthFlows) : undefined;
}

/** A `security` list; undefined when absent (the operation then inherits the document's). */
export function normalizeSecurity(ctx: NormalizeContext, value: JsonValue | undefined, pointer: string, schemes: Record<string, SecurityScheme>): SecurityRequirement[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    ctx.report.dropped(pointer, "security", `it must be a list of requirements, not ${describeValue(value)}`);
    return undefined;
  }
  const out: SecurityRequirement[] = [];
  value.forEach((entry, i) => {
    const at = childPointer(pointer, i);
    if (!isObject(entry)) {
      ctx.report.dropped(at, "security requirement", `it must be an object of scheme names, not ${describeValue(entry)}`);
      return;
    }
    out.push(requirement(ctx, entry, at, schemes));
  });
  return out;
}

function requirement(ctx: NormalizeContext, entry: JsonObject, pointer: string, schemes: Record<string, SecurityScheme>): SecurityRequirement {
  const out: SecurityRequirement = {};
  for (const [name, scopes] of Object.entries(entry)) {
    const at = childPointer(pointer, name);
    if (!Object.hasOwn(schemes, name)) {
      ctx.report.add("unknown-security-scheme", at, `the requirement names the security scheme ${JSON.stringify(name)}, which components.securitySchemes does not define`);
    }
    if (!isStringArray(scopes)) ctx.report.add("repaired-field", at, `scopes must be a list of strings, not ${describeValue(scopes)}; read as no scopes`);
    setOwn(out, name, isStringArray(scopes) ? scopes : []);
  }
  return out;
}
