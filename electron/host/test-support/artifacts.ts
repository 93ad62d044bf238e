/** Small hand-built artifacts for unit tests of the proxy's steps. */
import { ARTIFACT_FORMAT, type Artifact, type Operation } from "../../../shared/artifact.ts";

export function operation(partial: Partial<Operation> & Pick<Operation, "id" | "method" | "path">): Operation {
  return { tags: [], deprecated: false, parameters: [], responses: { "200": { description: "ok", content: { "application/json": { schema: {} } } } }, security: [], ...partial };
}

export function artifact(operations: Operation[], extra: Partial<Artifact> = {}): Artifact {
  return {
    format: ARTIFACT_FORMAT,
    hash: `test-${Math.random().toString(36).slice(2)}`,
    sourceVersion: "3.0.3",
    openapi: "3.0.3",
    schemaDialect: "openapi-3.0",
    info: { title: "Test API", version: "1" },
    servers: [{ url: "http://127.0.0.1" }],
    securitySchemes: {},
    security: [],
    tags: [],
    operations,
    schemas: {},
    warnings: [],
    ...extra,
  };
}
