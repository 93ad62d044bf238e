/**
 * Stage 4: the upgraded document to the artifact's content. Each part has its
 * own module (servers, security, schemas, operations); this one assembles
 * them and reads the document-level fields (info, tags).
 */
import type { Artifact } from "../../../shared/artifact.ts";
import type { JsonObject } from "../../../shared/json.ts";
import { describeValue, isObject } from "./json-guards.ts";
import { childPointer } from "./pointer.ts";
import { RefResolver } from "./refs.ts";
import type { RepairReport } from "./report.ts";
import { SchemaCollector } from "./schemas.ts";
import { normalizeOperations } from "./operations.ts";
import { normalizeSecurity, normalizeSecuritySchemes } from "./security.ts";
import { normalizeServers } from "./servers.ts";
import type { NormalizeContext } from "./context.ts";

export type NormalizedParts = Pick<Artifact, "info" | "servers" | "securitySchemes" | "security" | "tags" | "operations" | "schemas">;

export function normalizeDocument(doc: JsonObject, report: RepairReport, maxSchemaNodes: number): NormalizedParts {
  const ctx: NormalizeContext = { doc, report, refs: new RefResolver(doc, report), schemas: new SchemaCollector(doc, report, maxSchemaNodes) };
  ctx.schemas.collectComponents();
  const securitySchemes = normalizeSecuritySchemes(ctx);
  const security = normalizeSecurity(ctx, doc.security, "/security", securitySchemes) ?? [];
  const operations = normalizeOperations(ctx, { security, securitySchemes });
  if (isObject(doc.webhooks) && Object.keys(doc.webhooks).length > 0) {
    report.add("not-callable", "/webhooks", `the spec describes ${Object.keys(doc.webhooks).length} webhook(s): requests the API sends, not operations to call, so they are not listed`);
  }
  if (operations.length === 0) report.add("no-operations", "/paths", "the spec describes no operations, so there is nothing to call");
  return {
    info: info(ctx),
    servers: normalizeServers(ctx, doc.servers, "/servers") ?? [],
    securitySchemes,
    security,
    tags: tags(ctx, operations.flatMap((op) => op.tags)),
    operations,
    schemas: ctx.schemas.finish(),
  };
}

function info(ctx: NormalizeContext): Artifact["info"] {
  const value = ctx.doc.info;
  if (!isObject(value)) {
    ctx.report.add("missing-field", "/info", value === undefined ? "the spec has no info; titled it \"Untitled API\"" : `info must be an object, not ${describeValue(value)}; titled the spec "Untitled API"`);
    return { title: "Untitled API", version: "" };
  }
  let title = typeof value.title === "string" && value.title.trim() !== "" ? value.title : undefined;
  if (title === undefined) {
    ctx.report.add("missing-field", "/info/title", "the spec has no title; titled it \"Untitled API\"");
    title = "Untitled API";
  }
  let version = "";
  if (typeof value.version === "string") version = value.version;
  else if (typeof value.version === "number") {
    version = String(value.version);
    ctx.report.add("repaired-field", "/info/version", `the version should be a string; read the number ${value.version} as "${version}"`);
  } else {
    ctx.report.add("missing-field", "/info/version", "the spec does not give its version");
  }
  return { title, version, ...(typeof value.description === "string" ? { description: value.description } : {}) };
}

/** The declared tags in order, then any tag operations use without declaring it, so the UI can group by every tag. */
function tags(ctx: NormalizeContext, used: string[]): Artifact["tags"] {
  const out: Artifact["tags"] = [];
  const seen = new Set<string>();
  const declared = ctx.doc.tags;
  if (Array.isArray(declared)) {
    declared.forEach((tag, i) => {
      if (!isObject(tag) || typeof tag.name !== "string") {
        ctx.report.dropped(childPointer("/tags", i), "tag", `it must be an object with a name, not ${describeValue(tag)}`);
        return;
      }
      if (seen.has(tag.name)) return;
      seen.add(tag.name);
      out.push({ name: tag.name, ...(typeof tag.description === "string" ? { description: tag.description } : {}) });
    });
  } else if (declared !== undefined) {
    ctx.report.dropped("/tags", "tags", `they must be a list, not ${describeValue(declared)}`);
  }
  for (const name of used) {
    if (seen.has(name)) continue;
    seen.add(name);
    out.push({ name });
  }
  return out;
}
