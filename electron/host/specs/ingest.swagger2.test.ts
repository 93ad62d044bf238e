import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ingest } from "./ingest.ts";
import type { Artifact } from "../../../shared/artifact.ts";

function ingestFixture(name: string): Artifact {
  const result = ingest(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"));
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.artifact;
}

describe("ingest: the Swagger 2.0 pet store", () => {
  const artifact = ingestFixture("swagger2-petstore.json");
  const op = (id: string) => artifact.operations.find((o) => o.id === id)!;

  it("is upgraded to OpenAPI 3.0, and the upgrade is the one thing reported", () => {
    expect(artifact).toMatchObject({ sourceVersion: "2.0", openapi: "3.0.4", schemaDialect: "openapi-3.0" });
    expect(artifact.warnings).toEqual([{
      code: "upgraded-swagger-2",
      pointer: "",
      message: "Swagger 2.0 upgraded to OpenAPI 3.0 (servers from host, basePath and schemes: https://petstore.swagger.io/v2, http://petstore.swagger.io/v2; 1 body parameter became request bodies; 4 formData parameters became form request bodies; definitions became components/schemas)",
    }]);
  });

  it("turns host, basePath and schemes into servers, https first", () => {
    expect(artifact.servers).toEqual([{ url: "https://petstore.swagger.io/v2" }, { url: "http://petstore.swagger.io/v2" }]);
  });

  it("turns the body parameter into a request body for each consumed media type", () => {
    expect(op("addPet").parameters).toEqual([]);
    expect(op("addPet").requestBody).toEqual({
      required: true,
      description: "Pet object that needs to be added to the store",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } }, "application/xml": { schema: { $ref: "#/components/schemas/Pet" } } },
    });
  });

  it("turns formData parameters, including one used through $ref, into one required form body", () => {
    const upload = op("uploadFile");
    expect(upload.parameters).toEqual([{ name: "petId", in: "path", required: true, description: "ID of pet", schema: { type: "integer", format: "int64" } }]);
    expect(upload.requestBody).toEqual({
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            properties: { additionalMetadata: { type: "string", description: "Additional data to pass to server" }, file: { type: "string", format: "binary", description: "file to upload" } },
            required: ["file"],
          },
        },
      },
    });
    expect(op("updatePetWithForm").requestBody!.content).toHaveProperty(["application/x-www-form-urlencoded", "schema", "required"], ["status"]);
  });

  it("applies the path-level $ref parameter to every method of the path", () => {
    for (const id of ["getPetById", "updatePetWithForm", "deletePet"]) expect(op(id).parameters[0]).toMatchObject({ name: "petId", in: "path", required: true });
    expect(op("deletePet").parameters[1]).toEqual({ name: "api_key", in: "header", required: false, schema: { type: "string" } });
  });

  it("keeps query array serialisation, response headers, global responses and x-nullable", () => {
    expect(op("findPetsByStatus")).toMatchObject({ deprecated: true, parameters: [{ name: "status", style: "form", explode: true, schema: { type: "array" } }] });
    expect(op("loginUser").responses["200"]!.headers).toEqual({
      "X-Rate-Limit": { description: "calls per hour allowed by the user", schema: { type: "integer", format: "int32" } },
      "X-Expires-After": { schema: { type: "string", format: "date-time" } },
    });
    expect(op("getPetById").responses["404"]).toEqual({ description: "Pet not found", content: { "application/json": { schema: { $ref: "#/components/schemas/ApiResponse" } } } });
    expect(artifact.schemas.Pet!.properties).toHaveProperty("nickname", { type: "string", nullable: true });
  });

  it("upgrades security definitions, OAuth2 flow names included", () => {
    expect(artifact.securitySchemes).toEqual({
      api_key: { type: "apiKey", name: "api_key", in: "header" },
      petstore_auth: { type: "oauth2", flows: { implicit: { authorizationUrl: "https://petstore.swagger.io/oauth/authorize", scopes: { "read:pets": "read your pets", "write:pets": "modify pets in your account" } } } },
    });
    expect(op("addPet").security).toEqual([{ petstore_auth: ["write:pets", "read:pets"] }]);
  });
});

describe("ingest: a go-swagger style spec", () => {
  const artifact = ingestFixture("go-swagger-todos.yaml");
  const op = (id: string) => artifact.operations.find((o) => o.id === id)!;

  it("keeps a server relative to where the spec is served when there is no host", () => {
    expect(artifact.servers).toEqual([{ url: "/api/v1" }]);
    expect(artifact.warnings.map((w) => w.code)).toEqual(["upgraded-swagger-2"]);
    expect(artifact.warnings[0]!.message).toContain("no host, so the server is /api/v1 on the host the spec is served from");
  });

  it("turns a body parameter shared through #/parameters into each operation's request body", () => {
    for (const id of ["createTodo", "updateTodo"]) {
      expect(op(id).requestBody).toEqual({ required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Todo" } } } });
    }
    expect(op("updateTodo").parameters).toEqual([{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } }]);
  });

  it("resolves top-level responses, keeping vendor extensions in schemas", () => {
    expect(op("listTodos").responses["200"]).toEqual({ description: "Todos.", content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Todo" } } } } });
    expect(op("createTodo").responses["201"]!.headers).toEqual({ "X-Request-Id": { schema: { type: "string" } } });
    expect(op("createTodo").responses["422"]!.content!["application/json"]!.schema).toMatchObject({ type: "object", properties: { code: { type: "integer", "x-go-name": "Code" } } });
    expect(artifact.schemas.Todo).toMatchObject({ required: ["description"], "x-go-package": "github.com/example/todo/models", properties: { id: { readOnly: true } } });
  });

  it("keeps csv query arrays and the file upload form", () => {
    expect(op("listTodos").parameters.find((p) => p.name === "labels")).toEqual({ name: "labels", in: "query", required: false, style: "form", explode: false, schema: { type: "array", items: { type: "string" } } });
    expect(op("uploadAttachment").requestBody).toMatchObject({ required: true, content: { "multipart/form-data": { schema: { properties: { file: { type: "string", format: "binary" } }, required: ["file"] } } } });
    expect(op("destroyTodo").security).toEqual([{ key: [] }]);
    expect(artifact.securitySchemes).toEqual({ key: { type: "apiKey", name: "x-todolist-token", in: "header" } });
  });
});
