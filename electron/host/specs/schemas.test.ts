import { describe, expect, it } from "vitest";
import { SchemaCollector } from "./schemas.ts";
import { RepairReport } from "./report.ts";
import type { JsonObject } from "../../../shared/json.ts";

function collect(doc: JsonObject, inline?: { value: JsonObject; pointer: string }) {
  const report = new RepairReport();
  const collector = new SchemaCollector(doc, report, 100_000);
  collector.collectComponents();
  const schema = inline ? collector.schemaAt(inline.value, inline.pointer) : undefined;
  return { schemas: collector.finish(), schema, warnings: report.warnings };
}

describe("SchemaCollector", () => {
  it("keeps component refs as refs and copies every component once", () => {
    const { schemas, warnings } = collect({ components: { schemas: { A: { properties: { b: { $ref: "#/components/schemas/B" } } }, B: { type: "string" } } } });
    expect(schemas).toEqual({ A: { properties: { b: { $ref: "#/components/schemas/B" } } }, B: { type: "string" } });
    expect(warnings).toEqual([]);
  });

  it("turns refs to schemas elsewhere into synthetic named entries", () => {
    const doc = {
      definitions: { Legacy: { type: "integer" } },
      components: { schemas: { Pet: { properties: { owner: { properties: { name: { type: "string" } } } } } } },
    };
    const { schemas, schema } = collect(doc, {
      value: { properties: { a: { $ref: "#/definitions/Legacy" }, b: { $ref: "#/components/schemas/Pet/properties/owner" }, c: { $ref: "#/definitions/Legacy" } } },
      pointer: "/paths/~1x/get/responses/200/content/application~1json/schema",
    });
    expect(schema).toEqual({
      properties: {
        a: { $ref: "#/components/schemas/Legacy" },
        b: { $ref: "#/components/schemas/Pet_owner" },
        c: { $ref: "#/components/schemas/Legacy" },
      },
    });
    expect(schemas.Legacy).toEqual({ type: "integer" });
    expect(schemas.Pet_owner).toEqual({ properties: { name: { type: "string" } } });
  });

  it("never gives a synthetic entry a component's name", () => {
    const { schemas, schema } = collect(
      { definitions: { Pet: { type: "number" } }, components: { schemas: { Pet: { type: "object" } } } },
      { value: { $ref: "#/definitions/Pet" }, pointer: "/x" },
    );
    expect(schema).toEqual({ $ref: "#/components/schemas/Pet_2" });
    expect(schemas).toEqual({ Pet: { type: "object" }, Pet_2: { type: "number" } });
  });

  it("marks external and dangling refs and reports each with its pointer", () => {
    const { schemas, warnings } = collect({ components: { schemas: { A: { properties: { x: { $ref: "common.yaml#/Id" }, y: { $ref: "#/components/schemas/Nope" }, z: { $ref: "#anchor" } } } } } });
    expect(schemas.A).toEqual({
      properties: { x: { "x-unresolved-ref": "common.yaml#/Id" }, y: { "x-unresolved-ref": "#/components/schemas/Nope" }, z: { "x-unresolved-ref": "#anchor" } },
    });
    expect(warnings.map((w) => [w.code, w.pointer])).toEqual([
      ["external-ref", "/components/schemas/A/properties/x"],
      ["unresolved-ref", "/components/schemas/A/properties/y"],
      ["unresolved-ref", "/components/schemas/A/properties/z"],
    ]);
  });

  it("renames components whose names a ref cannot carry plainly", () => {
    const { schemas, warnings } = collect({ components: { schemas: { "My Pet/v2": { type: "object" }, User: { $ref: "#/components/schemas/My%20Pet~1v2" } } } });
    expect(schemas).toEqual({ My_Pet_v2: { type: "object" }, User: { $ref: "#/components/schemas/My_Pet_v2" } });
    expect(warnings).toEqual([{ code: "renamed-schema", pointer: "/components/schemas/My Pet~1v2", message: expect.stringContaining('"My_Pet_v2"') }]);
  });

  it("drops keywords of the wrong shape, keeping the rest of the schema", () => {
    const { schemas, warnings } = collect({
      components: { schemas: { S: { type: "object", required: "name", properties: "none", minLength: -1, pattern: "(", enum: "a", allOf: { type: "string" }, description: "kept", example: { $ref: "#/not/a/ref" } } } },
    });
    expect(schemas.S).toEqual({ type: "object", description: "kept", example: { $ref: "#/not/a/ref" } });
    expect(warnings.map((w) => w.pointer)).toEqual(["/components/schemas/S/required", "/components/schemas/S/properties", "/components/schemas/S/minLength", "/components/schemas/S/pattern", "/components/schemas/S/enum", "/components/schemas/S/allOf"]);
  });

  it("replaces a schema that is only a ref back to itself", () => {
    const { schemas, warnings } = collect({ components: { schemas: { Self: { $ref: "#/components/schemas/Self" }, Rec: { items: { $ref: "#/components/schemas/Rec" } } } } });
    expect(schemas).toEqual({ Self: {}, Rec: { items: { $ref: "#/components/schemas/Rec" } } });
    expect(warnings.map((w) => w.code)).toEqual(["circular-ref"]);
  });

  it("keeps a property named __proto__ as a property", () => {
    const doc = JSON.parse('{"components": {"schemas": {"A": {"properties": {"__proto__": {"type": "string"}}}}}}');
    const { schemas } = collect(doc);
    expect(Object.keys(schemas.A!.properties as object)).toEqual(["__proto__"]);
    expect(JSON.stringify(schemas.A)).toBe('{"properties":{"__proto__":{"type":"string"}}}');
  });
});
