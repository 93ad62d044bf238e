/**
 * The artifact: what ingest understood of a spec, in one serialisable shape that
 * the registry caches, the proxy matches and validates against, the search tool
 * serves to programs and the UI browses.
 *
 * Schemas keep their component references as `{"$ref": "#/components/schemas/<Name>"}`
 * pointing into `schemas`, so a 13 MB spec stays about 13 MB instead of the 73 MB
 * its full expansion takes. Every other `$ref` (parameters, bodies, responses,
 * headers, path items, any pointer to a schema elsewhere in the document) is
 * resolved at ingest. Views that need a schema whole expand it with
 * `expandSchema` (shared/schema-expand.ts), which marks cycles `{"$circular": "Name"}`.
 */
import type { JsonObject, JsonValue } from "./json.ts";

export const ARTIFACT_FORMAT = 1;

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
export const HTTP_METHODS: readonly HttpMethod[] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** Methods that never change state upstream: sent under the read-only policy. */
export const SAFE_METHODS: readonly HttpMethod[] = ["get", "head", "options"];

/** A JSON Schema object (draft-04-ish for OpenAPI 3.0, 2020-12 for 3.1). */
export type JsonSchema = JsonObject;

export interface RepairWarning {
  /** Stable machine code, e.g. `upgraded-swagger-2`, `derived-operation-id`, `dropped-field`, `external-ref`. */
  code: string;
  /** JSON pointer into the source document (`""` for the whole document). */
  pointer: string;
  message: string;
}

export interface ServerInfo {
  url: string;
  description?: string;
  variables?: Record<string, { default: string; enum?: string[]; description?: string }>;
}

export type SecurityScheme =
  | { type: "http"; scheme: string; bearerFormat?: string; description?: string }
  | { type: "apiKey"; name: string; in: "header" | "query" | "cookie"; description?: string }
  | {
      type: "oauth2";
      description?: string;
      flows: {
        clientCredentials?: { tokenUrl: string; scopes: Record<string, string> };
        authorizationCode?: { authorizationUrl: string; tokenUrl: string; scopes: Record<string, string> };
        implicit?: { authorizationUrl: string; scopes: Record<string, string> };
        password?: { tokenUrl: string; scopes: Record<string, string> };
        /** OpenAPI 3.2: RFC 8628's device authorization grant. */
        deviceAuthorization?: { deviceAuthorizationUrl: string; tokenUrl: string; scopes: Record<string, string> };
      };
    }
  | { type: "openIdConnect"; openIdConnectUrl: string; description?: string }
  | { type: "mutualTLS"; description?: string };

/** `[{schemeName: [scopes]}]`: any one entry satisfies the requirement; `[]` means none needed. */
export type SecurityRequirement = Record<string, string[]>;

export type ParameterLocation = "path" | "query" | "header" | "cookie";

export interface Parameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  description?: string;
  deprecated?: boolean;
  schema?: JsonSchema;
  /** OpenAPI serialisation; absent means the default for the location. */
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  /** `content` instead of `schema` (a parameter serialised as e.g. JSON). */
  content?: Record<string, MediaType>;
  example?: JsonValue;
}

export interface MediaType {
  schema?: JsonSchema;
  example?: JsonValue;
  examples?: Record<string, { summary?: string; value?: JsonValue }>;
  encoding?: Record<string, { contentType?: string; style?: string; explode?: boolean }>;
}

export interface RequestBody {
  required: boolean;
  description?: string;
  content: Record<string, MediaType>;
}

export interface ResponseSpec {
  description: string;
  headers?: Record<string, { description?: string; schema?: JsonSchema; required?: boolean }>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  /** Stable, unique within the artifact, a valid JavaScript identifier. */
  id: string;
  /** The spec's own operationId when it had one (even if `id` had to differ). */
  operationId?: string;
  method: HttpMethod;
  /** The path template as in the spec, e.g. `/pets/{petId}`. */
  path: string;
  summary?: string;
  description?: string;
  tags: string[];
  deprecated: boolean;
  /** Path-level and operation-level parameters merged (operation wins on name + in). */
  parameters: Parameter[];
  requestBody?: RequestBody;
  /** Keyed by status code (`"200"`, `"4XX"`, `"default"`). */
  responses: Record<string, ResponseSpec>;
  /** The operation's own requirement, else the document's; `[]` means explicitly none. */
  security: SecurityRequirement[];
  /** Operation-level servers, when the spec overrides them. */
  servers?: ServerInfo[];
}

export interface Artifact {
  format: typeof ARTIFACT_FORMAT;
  /** sha256 (hex) of the source text; the cache key. */
  hash: string;
  /** The version the document declared: `"2.0"`, `"3.0.3"`, `"3.1.0"`. */
  sourceVersion: string;
  /** The OpenAPI version the artifact follows after any upgrade: `"3.0.x"` or `"3.1.x"`. */
  openapi: string;
  /** Which JSON Schema dialect the schemas follow, for validation. */
  schemaDialect: "openapi-3.0" | "openapi-3.1";
  info: { title: string; version: string; description?: string };
  servers: ServerInfo[];
  securitySchemes: Record<string, SecurityScheme>;
  /** The document-level security requirement. */
  security: SecurityRequirement[];
  tags: { name: string; description?: string }[];
  operations: Operation[];
  /** Named schemas that `$ref`s point to: `#/components/schemas/<key>`. */
  schemas: Record<string, JsonSchema>;
  warnings: RepairWarning[];
}

/** What ingest returns: never a throw. */
export type IngestResult =
  | { ok: true; artifact: Artifact }
  | { ok: false; error: { code: string; pointer: string; message: string }; warnings: RepairWarning[] };

export const SCHEMA_REF_PREFIX = "#/components/schemas/";
