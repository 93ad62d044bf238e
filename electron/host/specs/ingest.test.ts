import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ingest } from "./ingest.ts";
import type { Artifact, IngestResult } from "../../../shared/artifact.ts";
import { expandSchema } from "../../../shared/schema-expand.ts";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const demoSpec = readFileSync(new URL("../../../specs/demo/petstore.yaml", import.meta.url), "utf8");

function artifactOf(result: IngestResult): Artifact {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.artifact;
}
const spec = (doc: object) => artifactOf(ingest(JSON.stringify({ openapi: "3.0.3", info: { title: "T", version: "1" }, ...doc })));

describe("ingest: the demo spec", () => {
  const artifact = artifactOf(ingest(demoSpec));

  it("is understood without a single repair", () => {
    expect(artifact.warnings).toEqual([]);
    expect(artifact).toMatchObject({ sourceVersion: "3.1.0", openapi: "3.1.0", schemaDialect: "openapi-3.1", info: { title: "Demo Pet Store", version: "1.0.0" } });
  });

  it("indexes every operation with its method, path, tags and auth", () => {
    expect(artifact.operations.map((op) => `${op.id} ${op.method.toUpperCase()} ${op.path} ${op.security.length ? "auth" : "open"}`)).toEqual([
      "listPets GET /pets open",
      "createPet POST /pets auth",
      "getPet GET /pets/{petId} open",
      "updatePet PATCH /pets/{petId} auth",
      "deletePet DELETE /pets/{petId} auth",
      "findPetsByStatus GET /pets/findByStatus open",
      "getInventory GET /store/inventory open",
      "placeOrder POST /store/orders auth",
      "getOrder GET /store/orders/{orderId} open",
      "cancelOrder DELETE /store/orders/{orderId} auth",
    ]);
    expect(artifact.operations.filter((op) => op.deprecated).map((op) => op.id)).toEqual(["findPetsByStatus"]);
    expect(artifact.securitySchemes).toEqual({ bearerAuth: { type: "http", scheme: "bearer", description: expect.any(String) } });
    expect(artifact.tags.map((t) => t.name)).toEqual(["pets", "store"]);
  });

  it("resolves parameter and response refs, merges path-level parameters, keeps schema refs", () => {
    const listPets = artifact.operations.find((op) => op.id === "listPets")!;
    expect(listPets.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(["query:limit", "query:offset", "query:status", "query:tag", "query:name"]);
    expect(listPets.parameters[0]).toEqual({ name: "limit", in: "query", required: false, description: "Pets per page (1 to 100).", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } });
    expect(listPets.responses["400"]).toEqual({ description: "The request was not valid", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
    const updatePet = artifact.operations.find((op) => op.id === "updatePet")!;
    expect(updatePet.parameters).toEqual([{ name: "petId", in: "path", required: true, schema: { type: "integer", format: "int64", minimum: 1 } }]);
    expect(updatePet.requestBody).toEqual({ required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/PetUpdate" } } } });
    expect(artifact.servers).toEqual([{ url: "http://127.0.0.1:{port}", description: expect.any(String), variables: { port: { default: "4010" } } }]);
  });

  it("round-trips through JSON unchanged", () => {
    expect(JSON.parse(JSON.stringify(artifact))).toEqual(artifact);
  });

  it("is the same artifact from the same text, with the text's sha256 as its hash", () => {
    const again = artifactOf(ingest(demoSpec));
    expect(again).toEqual(artifact);
    expect(artifact.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(artifactOf(ingest(`${demoSpec}\n`)).hash).not.toBe(artifact.hash);
  });
});

describe("ingest: a spec with the usual mistakes", () => {
  const artifact = artifactOf(ingest(fixture("messy-3.0.yaml")));

  it("reports every repair with its pointer", () => {
    expect(artifact.warnings.map((w) => `${w.code} ${w.pointer}`)).toEqual([
      "dropped-field /components/schemas/Item/properties/name/required",
      "dropped-field /components/schemas/Item/properties/price/minimum",
      "dropped-field /components/schemas/Item/properties/weird name/type",
      "repaired-field /paths/~1items/get/parameters/0",
      "dropped-field /paths/~1items/get/parameters/1",
      "ignored-parameter /paths/~1items/get/parameters/2",
      "repaired-field /paths/~1items/POST",
      "dropped-field /paths/~1items/POST/responses/ok",
      "repaired-field /paths/items~1{itemId}",
      "missing-path-parameter /paths/items~1{itemId}/get",
      "external-ref /paths/items~1{itemId}/get/responses/200/content/application~1json/schema",
      "unresolved-ref /paths/items~1{itemId}/delete/parameters/0",
      "missing-path-parameter /paths/items~1{itemId}/delete",
      "dropped-field /paths/~1reports/get/parameters/0/schema/pattern",
      "circular-ref /components/responses/Loop2",
      "dropped-field /paths/~1nothing",
      "sanitized-operation-id /paths/~1items/POST/operationId",
      "derived-operation-id /paths/~1items/get",
      "duplicate-operation-id /paths/items~1{itemId}/delete/operationId",
      "derived-operation-id /paths/~1reports/get/operationId",
      "repaired-field /info/version",
      "undefined-server-variable /servers/0/url",
      "undefined-server-variable /servers/1/url",
    ]);
  });

  it("still indexes every operation it could read, under usable ids", () => {
    expect(artifact.operations.map((op) => [op.id, op.operationId])).toEqual([
      ["getItems", undefined],
      ["itemsCreate", "items/create"],
      ["getItem", "getItem"],
      ["deleteItemsById", "getItem"],
      ["getReports", "delete"],
    ]);
    expect(artifact.operations[0]!.parameters).toEqual([{ name: "page", in: "query", required: false, schema: { type: "integer", minimum: 1 } }]);
    expect(artifact.schemas.ItemList).toEqual({ type: "array", items: { $ref: "#/components/schemas/Item" } });
  });
});

describe("ingest: recursive schemas", () => {
  const artifact = artifactOf(ingest(fixture("recursive.yaml")));

  it("keeps recursive refs as refs, so the artifact serialises", () => {
    expect(artifact.schemas.TreeNode).toEqual({ type: "object", properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/TreeNode" } } } });
    expect(() => JSON.stringify(artifact)).not.toThrow();
  });

  it("expands with cycles marked", () => {
    const getTree = artifact.operations.find((op) => op.id === "getTree")!;
    const schema = getTree.responses["200"]!.content!["application/json"]!.schema!;
    expect(expandSchema(schema, artifact.schemas)).toEqual({
      type: "object",
      properties: { value: { type: "string" }, children: { type: "array", items: { $circular: "TreeNode" } } },
    });
    expect(expandSchema({ $ref: "#/components/schemas/Person" }, artifact.schemas)).toEqual({
      type: "object",
      properties: { name: { type: "string" }, employer: { type: "object", properties: { name: { type: "string" }, ceo: { $circular: "Person" } } } },
    });
  });

  it("breaks a schema that is only a ref cycle, and says so", () => {
    expect(artifact.schemas.Alias).toEqual({});
    expect(artifact.warnings).toEqual([{ code: "circular-ref", pointer: "/components/schemas/Alias", message: expect.any(String) }]);
  });
});

describe("ingest: operations", () => {
  it("lets the operation's parameters override the path item's, on name and location", () => {
    const artifact = spec({
      paths: {
        "/users/{id}": {
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
          get: { parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }, { name: "x-trace", in: "header", schema: { type: "integer" } }], responses: {} },
          delete: { responses: {} },
        },
      },
    });
    const [get, del] = artifact.operations;
    expect(get!.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: "integer" } },
      { name: "x-trace", in: "header", required: false, schema: { type: "integer" } },
    ]);
    expect(del!.parameters.map((p) => p.schema)).toEqual([{ type: "string" }, { type: "string" }]);
  });

  it("inherits the document's security unless the operation says otherwise, and an empty list means none", () => {
    const artifact = spec({
      components: { securitySchemes: { key: { type: "apiKey", name: "X-Key", in: "header" } } },
      security: [{ key: [] }],
      paths: { "/a": { get: { responses: {} }, post: { security: [], responses: {} }, put: { security: [{ key: [] }, {}], responses: {} } } },
    });
    expect(artifact.operations.map((op) => op.security)).toEqual([[{ key: [] }], [], [{ key: [] }, {}]]);
  });

  it("reports a requirement that names an undefined scheme", () => {
    const artifact = spec({ paths: { "/a": { get: { security: [{ oauth: ["read"] }], responses: {} } } } });
    expect(artifact.warnings).toContainEqual({ code: "unknown-security-scheme", pointer: "/paths/~1a/get/security/0/oauth", message: expect.any(String) });
  });

  it("resolves a path item ref and refs to responses, bodies and examples, sharing what components share", () => {
    const artifact = spec({
      paths: {
        "/a": { $ref: "#/x-shared/item" },
        "/b": { get: { responses: { "404": { $ref: "#/components/responses/NotFound" } } } },
      },
      "x-shared": { item: { post: { requestBody: { $ref: "#/components/requestBodies/Thing" }, responses: { "404": { $ref: "#/components/responses/NotFound" } } } } },
      components: {
        requestBodies: { Thing: { required: true, content: { "application/json": { schema: { type: "object" }, examples: { one: { $ref: "#/components/examples/One" } } } } } },
        responses: { NotFound: { description: "missing" } },
        examples: { One: { summary: "first", value: { a: 1 } } },
      },
    });
    const [post, get] = artifact.operations;
    expect(post!.requestBody).toEqual({ required: true, content: { "application/json": { schema: { type: "object" }, examples: { one: { summary: "first", value: { a: 1 } } } } } });
    expect(post!.responses["404"]).toBe(get!.responses["404"]);
  });

  it("reports paths that match the same requests, and webhooks and callbacks it does not list", () => {
    const artifact = spec({
      paths: {
        "/pets/{id}": { get: { operationId: "a", responses: {} } },
        "/pets/{petId}": { get: { operationId: "b", responses: {} }, post: { operationId: "c", callbacks: { done: {} }, responses: {} } },
      },
      webhooks: { newPet: { post: { responses: {} } } },
    });
    expect(artifact.operations.map((op) => op.id)).toEqual(["a", "b", "c"]);
    expect(artifact.warnings.filter((w) => w.code !== "missing-path-parameter").map((w) => `${w.code} ${w.pointer}`)).toEqual([
      "not-callable /paths/~1pets~1{petId}/post/callbacks",
      "ambiguous-path /paths/~1pets~1{petId}/get",
      "not-callable /webhooks",
    ]);
  });

  it("drops a request body without content, and reports it", () => {
    const artifact = spec({ paths: { "/a": { post: { requestBody: { description: "nothing" }, responses: {} } } } });
    expect(artifact.operations[0]!.requestBody).toBeUndefined();
    expect(artifact.warnings).toContainEqual({ code: "dropped-field", pointer: "/paths/~1a/post/requestBody", message: expect.stringContaining("no content") });
  });

  it("drops security schemes that lack what the proxy needs", () => {
    const artifact = spec({
      components: {
        securitySchemes: {
          ok: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { read: "Read" } }, implicit: {} } },
          noIn: { type: "apiKey", name: "key" },
          weird: { type: "magic" },
          bearer: { type: "http", scheme: "Bearer" },
        },
      },
      paths: { "/a": { get: { responses: {} } } },
    });
    expect(artifact.securitySchemes).toEqual({
      ok: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { read: "Read" } } } },
      bearer: { type: "http", scheme: "bearer" },
    });
    expect(artifact.warnings.filter((w) => w.code === "dropped-field").map((w) => w.pointer)).toEqual(["/components/securitySchemes/ok/flows/implicit", "/components/securitySchemes/noIn", "/components/securitySchemes/weird"]);
  });

  it("reads the same spec from YAML and from JSON identically, apart from the hash", () => {
    const doc = JSON.parse(fixture("swagger2-petstore.json"));
    const fromJson = artifactOf(ingest(JSON.stringify(doc)));
    const fromYaml = artifactOf(ingest(stringify(doc)));
    expect({ ...fromYaml, hash: "" }).toEqual({ ...fromJson, hash: "" });
  });
});

describe("ingest: refusals", () => {
  it("returns a structured error naming what is wrong and where", () => {
    expect(ingest("")).toMatchObject({ ok: false, error: { code: "empty-document" } });
    expect(ingest("openapi: [")).toMatchObject({ ok: false, error: { code: "parse-error", message: expect.stringMatching(/line 1/) } });
    expect(ingest('"just a string"')).toMatchObject({ ok: false, error: { code: "not-an-object" } });
    expect(ingest('{"openapi": "5.0.0"}')).toMatchObject({ ok: false, error: { code: "unsupported-version", pointer: "/openapi" } });
  });

  it("returns an error rather than throwing when handed something that is not text", () => {
    expect(ingest(42 as unknown as string)).toMatchObject({ ok: false, error: { code: "not-text" } });
  });

  it("keeps the warnings gathered before the stage that refused", () => {
    const result = ingest("a: 1\na: 2\n");
    expect(result).toMatchObject({ ok: false, error: { code: "not-openapi" }, warnings: [{ code: "duplicate-key", pointer: "/a" }] });
  });

  it("points Swagger 2.0 warnings at the Swagger 2.0 document", () => {
    const result = ingest(JSON.stringify({ swagger: "2.0", info: { title: "t", version: "1" }, paths: {}, definitions: { Pet: { type: "object", required: true } } }));
    expect(artifactOf(result).warnings).toContainEqual({ code: "dropped-field", pointer: "/definitions/Pet/required", message: expect.any(String) });
  });

  it("refuses a document over the size budget", () => {
    const big = JSON.stringify({ openapi: "3.0.0", paths: {}, "x-big": Array.from({ length: 2_000 }, (_, i) => i) });
    expect(ingest(big, { maxNodes: 1_000 })).toMatchObject({ ok: false, error: { code: "too-large" } });
  });
});

describe("a schema that refers to the whole document", () => {
  // Found by the property test: `{"$ref": "#"}` made the whole spec (paths included) a "schema".
  it("is reported and accepts any value instead", () => {
    const doc = {
      openapi: "3.0.3",
      info: { title: "Root ref", version: "1" },
      paths: { "/x": { get: { operationId: "getX", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#" } } } } } } } },
    };
    const artifact = artifactOf(ingest(JSON.stringify(doc)));
    expect(artifact.operations[0]!.responses["200"]!.content!["application/json"]!.schema).toEqual({ "x-unresolved-ref": "#" });
    expect(artifact.warnings).toContainEqual(expect.objectContaining({ code: "unresolved-ref", message: expect.stringMatching(/the whole document, not a schema/) }));
    expect(Object.keys(artifact.schemas)).toEqual([]);
  });
});
