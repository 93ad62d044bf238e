/**
 * Golden test on GitHub's REST API spec (13 MB, from @octokit/openapi via
 * scripts/fixtures.ts, never committed). Parsed once for the whole file.
 */
import { readFileSync, statSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { githubSpecPath } from "../../../scripts/fixtures.ts";
import { ingest } from "./ingest.ts";
import { isUsableOperationId } from "./operation-ids.ts";
import { SCHEMA_REF_PREFIX, type Artifact } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { expandSchema } from "../../../shared/schema-expand.ts";

let artifact: Artifact;
let specBytes: number;

beforeAll(() => {
  const path = githubSpecPath();
  specBytes = statSync(path).size;
  const result = ingest(readFileSync(path, "utf8"));
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  artifact = result.artifact;
}, 120_000);

const byOperationId = (id: string) => artifact.operations.find((op) => op.operationId === id)!;

/** Every `$ref` string anywhere in a value. */
function refsIn(value: JsonValue | object, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else if (k !== "example" && k !== "examples" && k !== "default") refsIn(v as JsonValue, out);
    }
  }
  return out;
}

describe("ingest: GitHub's REST API spec", () => {
  it("understands the document as a whole", () => {
    expect(artifact).toMatchObject({ sourceVersion: "3.0.3", openapi: "3.0.3", schemaDialect: "openapi-3.0", servers: [{ url: "https://api.github.com" }], securitySchemes: {}, security: [] });
    expect(artifact.info.title).toContain("GitHub");
    expect(artifact.operations).toHaveLength(1_223);
    expect(Object.keys(artifact.schemas)).toHaveLength(969);
    expect(artifact.tags).toHaveLength(49);
    expect(artifact.operations.filter((op) => op.deprecated)).toHaveLength(37);
    const methods: Record<string, number> = {};
    for (const op of artifact.operations) methods[op.method] = (methods[op.method] ?? 0) + 1;
    expect(methods).toEqual({ get: 639, post: 193, patch: 70, delete: 187, put: 134 });
  });

  it("gives every operation a unique identifier made from its operationId, and reports each", () => {
    const ids = artifact.operations.map((op) => op.id);
    expect(new Set(ids).size).toBe(1_223);
    expect(ids.every(isUsableOperationId)).toBe(true);
    expect(artifact.operations.every((op) => op.operationId !== undefined)).toBe(true);
    expect(byOperationId("repos/get-content").id).toBe("reposGetContent");
    expect(byOperationId("meta/root").id).toBe("metaRoot");
    // GitHub's ids all contain "/", so each one is a reported repair and nothing else is.
    expect(artifact.warnings).toHaveLength(1_223);
    expect(new Set(artifact.warnings.map((w) => w.code))).toEqual(new Set(["sanitized-operation-id"]));
    expect(artifact.warnings).toContainEqual({
      code: "sanitized-operation-id",
      pointer: "/paths/~1repos~1{owner}~1{repo}~1contents~1{path}/get/operationId",
      message: 'operationId "repos/get-content" is not a JavaScript identifier; call it as reposGetContent',
    });
  });

  it("reads repos/get in full", () => {
    const op = byOperationId("repos/get");
    expect(op).toMatchObject({ id: "reposGet", method: "get", path: "/repos/{owner}/{repo}", tags: ["repos"], deprecated: false, security: [] });
    expect(op.parameters).toEqual([
      { name: "owner", in: "path", required: true, description: "The account owner of the repository. The name is not case sensitive.", schema: { type: "string" } },
      { name: "repo", in: "path", required: true, description: "The name of the repository without the `.git` extension. The name is not case sensitive.", schema: { type: "string" } },
    ]);
    expect(Object.keys(op.responses)).toEqual(["200", "301", "403", "404"]);
    expect(op.responses["301"]).toEqual({ description: "Moved permanently", content: { "application/json": { schema: { $ref: "#/components/schemas/basic-error" } } } });
    expect(op.responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/full-repository" });
    expect(op.requestBody).toBeUndefined();
  });

  it("reads issues/create in full: body, response headers and examples resolved", () => {
    const op = byOperationId("issues/create");
    expect(op).toMatchObject({ id: "issuesCreate", method: "post", path: "/repos/{owner}/{repo}/issues" });
    expect(op.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(["path:owner", "path:repo"]);
    const body = op.requestBody!;
    expect(body.required).toBe(true);
    const schema = body.content["application/json"]!.schema!;
    expect(schema).toMatchObject({ type: "object", required: ["title"] });
    expect(Object.keys(schema.properties as object)).toEqual(expect.arrayContaining(["title", "body", "assignee", "milestone", "labels", "assignees"]));
    expect(op.responses["201"]!.headers).toEqual({ Location: { schema: { type: "string" } } });
    expect(op.responses["201"]!.content!["application/json"]!.examples!.default!.value).toMatchObject({ number: 1347, title: "Found a bug" });
  });

  it("keeps only component schema refs, each naming a schema that exists", () => {
    const refs = refsIn(artifact);
    expect(refs.length).toBeGreaterThan(3_000);
    const missing = refs.filter((r) => !r.startsWith(SCHEMA_REF_PREFIX) || !Object.hasOwn(artifact.schemas, r.slice(SCHEMA_REF_PREFIX.length)));
    expect(missing).toEqual([]);
  });

  it("serialises smaller than the source, without expanding shared schemas", () => {
    const text = JSON.stringify(artifact);
    expect(text.length).toBeLessThan(specBytes);
    expect(JSON.parse(text).operations).toHaveLength(1_223);
  });

  it("expands a large schema fully and within bounds", () => {
    const expanded = expandSchema({ $ref: "#/components/schemas/full-repository" }, artifact.schemas);
    const text = JSON.stringify(expanded);
    expect(text).not.toContain('"$ref"');
    expect(text).not.toContain('"$truncated"');
    expect(expanded).toMatchObject({ type: "object", properties: { owner: { type: "object", properties: { login: { type: "string" } } } } });
  });
});
