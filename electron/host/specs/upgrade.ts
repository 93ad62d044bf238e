/**
 * Stage 3: whatever version came in, an OpenAPI 3.x document comes out.
 * Swagger 2.0 goes through `@scalar/openapi-upgrader` after swagger2.ts has
 * fixed what the upgrader gets wrong; 3.0 and 3.1 pass through unchanged; a
 * version we do not know is an error that names it. The upgrade itself is
 * reported, so a person knows the operations they see were translated.
 */
import { upgradeFromTwoToThree } from "@scalar/openapi-upgrader/2.0-to-3.0";
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import type { Artifact } from "../../../shared/artifact.ts";
import { describeValue, isObject } from "./json-guards.ts";
import type { IngestError, RepairReport } from "./report.ts";
import { prepareSwagger2 } from "./swagger2.ts";
import { valueAt } from "./pointer.ts";

export type UpgradeResult =
  | { ok: true; document: JsonObject; sourceVersion: string; openapi: string; schemaDialect: Artifact["schemaDialect"] }
  | { ok: false; error: IngestError };

export function upgradeDocument(document: JsonValue, report: RepairReport): UpgradeResult {
  if (!isObject(document)) {
    return fail("not-an-object", "", `the document is ${describeValue(document)}, not an OpenAPI object (a mapping with openapi, info and paths)`);
  }
  if (document.swagger !== undefined) return upgradeSwagger2(document, report);
  if (document.openapi === undefined) {
    if (document.swaggerVersion !== undefined) return fail("unsupported-version", "/swaggerVersion", "Swagger 1.x is not supported; convert it to OpenAPI 3 (or Swagger 2.0) first");
    if (!isObject(document.paths)) return fail("not-openapi", "", "the document has no openapi (or swagger) field and no paths: it does not look like an OpenAPI document");
    report.add("missing-version", "/openapi", "the document does not say its OpenAPI version; read it as OpenAPI 3.0");
    document.openapi = "3.0.0";
  }
  const declared = document.openapi;
  const version = typeof declared === "number" ? numberVersion(declared) : declared;
  if (typeof version !== "string") return fail("unsupported-version", "/openapi", `openapi must be a version string such as "3.1.0", not ${describeValue(declared)}`);
  const match = /^3\.(\d+)(\.\d+)?(-[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (!match) return fail("unsupported-version", "/openapi", `OpenAPI ${version} is not supported; the workbench reads OpenAPI 3.0, 3.1 and Swagger 2.0`);
  if (typeof declared === "number") report.add("repaired-field", "/openapi", `openapi should be a string; read the number ${declared} as "${version}"`);
  const minor = Number(match[1]);
  if (minor >= 2) report.add("newer-version", "/openapi", `OpenAPI ${version} is newer than this workbench knows; read as OpenAPI 3.1, so features new in ${version} are ignored`);
  return { ok: true, document, sourceVersion: version, openapi: version, schemaDialect: minor === 0 ? "openapi-3.0" : "openapi-3.1" };
}

function upgradeSwagger2(document: JsonObject, report: RepairReport): UpgradeResult {
  const declared = document.swagger;
  if (!(declared === "2.0" || declared === 2 || declared === "2")) {
    return fail("unsupported-version", "/swagger", `Swagger ${String(declared)} is not supported; the workbench reads Swagger 2.0 and OpenAPI 3.0 and 3.1`);
  }
  document.swagger = "2.0";
  const facts = prepareSwagger2(document, report);
  let upgraded: JsonValue;
  try {
    upgraded = upgradeFromTwoToThree(document as never) as unknown as JsonValue;
  } catch (err) {
    return fail("upgrade-failed", "", `could not upgrade this Swagger 2.0 document to OpenAPI 3: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(upgraded)) return fail("upgrade-failed", "", "upgrading this Swagger 2.0 document to OpenAPI 3 produced no document");
  for (const { path, method } of facts.requiredForms) {
    const body = valueAt(upgraded, ["paths", path, method, "requestBody"]);
    if (isObject(body)) body.required = true;
  }
  const relative = facts.servers.every((url) => url.startsWith("/"));
  const moved = [
    relative ? `no host, so the server is ${facts.servers[0]} on the host the spec is served from` : `servers from host, basePath and schemes: ${facts.servers.join(", ")}`,
    facts.bodyParameters > 0 ? `${count(facts.bodyParameters, "body parameter")} became request bodies` : "",
    facts.formParameters > 0 ? `${count(facts.formParameters, "formData parameter")} became form request bodies` : "",
    "definitions became components/schemas",
  ].filter(Boolean);
  report.add("upgraded-swagger-2", "", `Swagger 2.0 upgraded to OpenAPI 3.0 (${moved.join("; ")})`);
  const openapi = typeof upgraded.openapi === "string" ? upgraded.openapi : "3.0.4";
  return { ok: true, document: upgraded, sourceVersion: "2.0", openapi, schemaDialect: "openapi-3.0" };
}

/** Warning pointers are computed on the upgraded document; point them back at the Swagger 2.0 source. */
export function swagger2Pointer(pointer: string): string {
  for (const [from, to] of SWAGGER2_PREFIXES) if (pointer.startsWith(from)) return to + pointer.slice(from.length);
  return pointer;
}

const SWAGGER2_PREFIXES: [string, string][] = [
  ["/components/schemas/", "/definitions/"],
  ["/components/parameters/", "/parameters/"],
  ["/components/requestBodies/", "/parameters/"],
  ["/components/responses/", "/responses/"],
  ["/components/securitySchemes/", "/securityDefinitions/"],
];

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

function numberVersion(n: number): string | undefined {
  if (n === 3) return "3.0";
  if (n > 3 && n < 4) return String(n);
  return undefined;
}

function fail(code: string, pointer: string, message: string): UpgradeResult {
  return { ok: false, error: { code, pointer, message } };
}
