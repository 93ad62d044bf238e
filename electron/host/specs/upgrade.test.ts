import { describe, expect, it } from "vitest";
import { swagger2Pointer, upgradeDocument } from "./upgrade.ts";
import { RepairReport } from "./report.ts";

describe("upgradeDocument", () => {
  it("passes OpenAPI 3.0 and 3.1 through with their schema dialect", () => {
    expect(upgradeDocument({ openapi: "3.0.3", paths: {} }, new RepairReport())).toMatchObject({ ok: true, sourceVersion: "3.0.3", openapi: "3.0.3", schemaDialect: "openapi-3.0" });
    expect(upgradeDocument({ openapi: "3.1.0", paths: {} }, new RepairReport())).toMatchObject({ ok: true, schemaDialect: "openapi-3.1" });
  });

  it("reads 3.2 as 3.1 and a numeric version as a string, reporting both", () => {
    const report = new RepairReport();
    expect(upgradeDocument({ openapi: "3.2.0" }, report)).toMatchObject({ ok: true, schemaDialect: "openapi-3.1" });
    expect(upgradeDocument({ openapi: 3.1 }, report)).toMatchObject({ ok: true, openapi: "3.1" });
    expect(report.warnings.map((w) => [w.code, w.pointer])).toEqual([["newer-version", "/openapi"], ["repaired-field", "/openapi"]]);
  });

  it("names the version it cannot read", () => {
    expect(upgradeDocument({ openapi: "4.0.0" }, new RepairReport())).toMatchObject({ ok: false, error: { code: "unsupported-version", pointer: "/openapi", message: expect.stringContaining("4.0.0") } });
    expect(upgradeDocument({ swagger: "1.2" }, new RepairReport())).toMatchObject({ ok: false, error: { code: "unsupported-version", pointer: "/swagger" } });
    expect(upgradeDocument({ swaggerVersion: "1.2", apis: [] }, new RepairReport())).toMatchObject({ ok: false, error: { code: "unsupported-version" } });
    expect(upgradeDocument({ hello: "world" }, new RepairReport())).toMatchObject({ ok: false, error: { code: "not-openapi" } });
    expect(upgradeDocument(["a list"], new RepairReport())).toMatchObject({ ok: false, error: { code: "not-an-object", message: expect.stringContaining("an array") } });
  });

  it("reads a document without a version but with paths as 3.0, and says so", () => {
    const report = new RepairReport();
    expect(upgradeDocument({ paths: {} }, report)).toMatchObject({ ok: true, schemaDialect: "openapi-3.0" });
    expect(report.warnings[0]).toMatchObject({ code: "missing-version" });
  });

  it("upgrades Swagger 2.0: https first, a missing scheme assumed https, a missing host kept relative", () => {
    const both = upgradeDocument({ swagger: "2.0", host: "api.example.com", basePath: "/v1/", schemes: ["http", "https"], paths: {} }, new RepairReport());
    expect(both).toMatchObject({ ok: true, sourceVersion: "2.0", document: { servers: [{ url: "https://api.example.com/v1" }, { url: "http://api.example.com/v1" }] } });

    const report = new RepairReport();
    const none = upgradeDocument({ swagger: 2, host: "https://api.example.com", paths: {} }, report);
    expect(none).toMatchObject({ ok: true, document: { servers: [{ url: "https://api.example.com" }] } });
    expect(report.warnings.map((w) => w.code)).toEqual(["repaired-field", "assumed-scheme", "upgraded-swagger-2"]);

    expect(upgradeDocument({ swagger: "2.0", basePath: "api", paths: {} }, new RepairReport())).toMatchObject({ ok: true, document: { servers: [{ url: "/api" }] } });
  });

  it("turns body and formData parameters into request bodies, including ones used through $ref and at path level", () => {
    const doc = {
      swagger: "2.0",
      paths: {
        "/things/{id}": {
          parameters: [{ $ref: "#/parameters/id" }, { $ref: "#/parameters/note" }],
          post: { parameters: [{ name: "file", in: "formData", type: "file", required: true }], responses: { "200": { description: "ok" } } },
          put: { parameters: [{ $ref: "#/parameters/body" }], responses: {} },
        },
      },
      parameters: {
        id: { name: "id", in: "path", required: true, type: "string" },
        note: { name: "note", in: "formData", type: "string" },
        body: { name: "body", in: "body", required: true, schema: { type: "object" } },
      },
    };
    const result = upgradeDocument(doc, new RepairReport());
    if (!result.ok) throw new Error(result.error.message);
    const item = (result.document.paths as Record<string, Record<string, Record<string, unknown>>>)["/things/{id}"]!;
    expect(item.post!.parameters).toEqual([{ name: "id", in: "path", required: true, schema: { type: "string" } }]);
    expect(item.post!.requestBody).toEqual({
      required: true,
      content: {
        "multipart/form-data": {
          schema: { type: "object", properties: { note: { type: "string" }, file: { type: "string", format: "binary" } }, required: ["file"] },
        },
      },
    });
    expect(item.put!.requestBody).toMatchObject({ required: true, content: { "application/json": { schema: { type: "object" } } } });
  });

  it("drops the shapes that make the upgrader throw, with their pointers", () => {
    const report = new RepairReport();
    const result = upgradeDocument(
      {
        swagger: "2.0",
        consumes: "application/json",
        paths: { "/a": { get: null, post: { parameters: [7, { name: "x" }, { name: "y", in: "query", type: "string" }], responses: { "200": null } }, "x-empty": null } },
        securityDefinitions: { broken: null },
      },
      report,
    );
    expect(result.ok).toBe(true);
    expect(report.warnings.filter((w) => w.code === "dropped-field").map((w) => w.pointer)).toEqual([
      "/consumes", "/securityDefinitions/broken", "/paths/~1a/get", "/paths/~1a/post/responses/200", "/paths/~1a/post/parameters/0", "/paths/~1a/post/parameters/1",
    ]);
  });

  it("keeps extension objects, null refs, array path items and array responses away from the upgrader", () => {
    const report = new RepairReport();
    const result = upgradeDocument(
      {
        swagger: "2.0",
        paths: {
          "/a": { $ref: null, "x-internal": { responses: { "200": null } }, get: { responses: [null] } },
          "/b": [null, { parameters: null }],
        },
      },
      report,
    );
    expect(result).toMatchObject({ ok: true, document: { paths: { "/a": { get: {} } } } });
    expect(report.warnings.filter((w) => w.code === "dropped-field").map((w) => w.pointer)).toEqual(["/paths/~1a/$ref", "/paths/~1a/get/responses", "/paths/~1b"]);
  });

  it("maps upgraded pointers back to the Swagger 2.0 source", () => {
    expect(swagger2Pointer("/components/schemas/Pet/properties/id")).toBe("/definitions/Pet/properties/id");
    expect(swagger2Pointer("/components/securitySchemes/key")).toBe("/securityDefinitions/key");
    expect(swagger2Pointer("/paths/~1pets/get")).toBe("/paths/~1pets/get");
  });
});
