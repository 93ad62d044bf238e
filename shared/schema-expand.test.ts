import { describe, expect, it } from "vitest";
import { expandSchema, schemaRefName } from "./schema-expand.ts";
import type { JsonSchema } from "./artifact.ts";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe("expandSchema", () => {
  it("expands nested component refs in place", () => {
    const schemas: Record<string, JsonSchema> = {
      Pet: { type: "object", properties: { id: { type: "integer" }, category: ref("Category") } },
      Category: { type: "object", properties: { name: { type: "string" } } },
    };
    expect(expandSchema({ type: "array", items: ref("Pet") }, schemas)).toEqual({
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "integer" }, category: { type: "object", properties: { name: { type: "string" } } } },
      },
    });
  });

  it("marks a ref already on the expansion path as circular", () => {
    const schemas: Record<string, JsonSchema> = {
      Node: { type: "object", properties: { value: { type: "string" }, children: { type: "array", items: ref("Node") } } },
    };
    expect(expandSchema(ref("Node"), schemas)).toEqual({
      type: "object",
      properties: { value: { type: "string" }, children: { type: "array", items: { $circular: "Node" } } },
    });
  });

  it("marks mutual recursion at the second visit, not before", () => {
    const schemas: Record<string, JsonSchema> = { A: { properties: { b: ref("B") } }, B: { properties: { a: ref("A") } } };
    expect(expandSchema(ref("A"), schemas)).toEqual({ properties: { b: { properties: { a: { $circular: "A" } } } } });
  });

  it("expands the same schema twice when it is reused but not recursive", () => {
    const schemas: Record<string, JsonSchema> = { Id: { type: "integer" } };
    expect(expandSchema({ properties: { a: ref("Id"), b: ref("Id") } }, schemas)).toEqual({
      properties: { a: { type: "integer" }, b: { type: "integer" } },
    });
  });

  it("keeps a billion-laughs ref graph within the node budget", () => {
    // L0 uses L1 ten times, L1 uses L2 ten times, ...: 10^12 nodes expanded naively.
    const schemas: Record<string, JsonSchema> = {};
    for (let level = 0; level < 12; level++) {
      schemas[`L${level}`] = { allOf: Array.from({ length: 10 }, () => ref(`L${level + 1}`)) };
    }
    schemas.L12 = { type: "string" };
    const out = expandSchema(ref("L0"), schemas, { maxNodes: 5_000 });
    const text = JSON.stringify(out);
    expect(text).toContain('"$truncated"');
    expect(text.length).toBeLessThan(400_000);
  });

  it("truncates beyond the depth budget and names the schema cut", () => {
    const schemas: Record<string, JsonSchema> = {};
    for (let i = 0; i < 50; i++) schemas[`S${i}`] = { properties: { next: ref(`S${i + 1}`) } };
    schemas.S50 = { type: "null" };
    const out = JSON.stringify(expandSchema(ref("S0"), schemas, { maxDepth: 10 }));
    expect(out).toMatch(/"\$truncated":"S\d+"/);
    expect(out).not.toContain('"type":"null"');
  });

  it("merges keywords beside a ref over the target", () => {
    const schemas: Record<string, JsonSchema> = { Name: { type: "string", description: "a name" } };
    expect(expandSchema({ $ref: "#/components/schemas/Name", description: "the pet's name" }, schemas)).toEqual({
      type: "string",
      description: "the pet's name",
    });
  });

  it("never looks for refs inside data keywords", () => {
    const schemas: Record<string, JsonSchema> = { X: { type: "string" } };
    const input = { type: "object", example: { $ref: "#/components/schemas/X" }, default: ref("X"), enum: [ref("X")] };
    expect(expandSchema(input, schemas)).toEqual(input);
  });

  it("leaves unknown and non-component refs as they are", () => {
    const input = { properties: { a: ref("Missing"), b: { $ref: "other.yaml#/Pet" } } };
    expect(expandSchema(input, {})).toEqual(input);
  });

  it("keeps a property named __proto__ as a property", () => {
    const out = expandSchema({ properties: JSON.parse('{"__proto__": {"type": "string"}}') }, {}) as { properties: object };
    expect(Object.keys(out.properties)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(out.properties)).toBe(Object.prototype);
  });

  it("handles boolean schemas and tuple items", () => {
    const schemas: Record<string, JsonSchema> = { N: { type: "number" } };
    expect(expandSchema({ items: [ref("N"), true], additionalProperties: false }, schemas)).toEqual({
      items: [{ type: "number" }, true],
      additionalProperties: false,
    });
  });
});

describe("schemaRefName", () => {
  it("reads names, including escaped ones, and rejects deeper pointers", () => {
    expect(schemaRefName("#/components/schemas/Pet")).toBe("Pet");
    expect(schemaRefName("#/components/schemas/a~1b%20c")).toBe("a/b c");
    expect(schemaRefName("#/components/schemas/Pet/properties/id")).toBeUndefined();
    expect(schemaRefName("#/definitions/Pet")).toBeUndefined();
  });
});
