import { describe, expect, it } from "vitest";
import { buildCallSnippet, freshName, literal } from "./snippet.ts";
import type { Operation } from "../../shared/artifact.ts";

describe("snippet", () => {
  it("picks a result name the program does not use", () => {
    expect(freshName("createPetRes", "")).toBe("createPetRes");
    expect(freshName("createPetRes", "const createPetRes = 1;\nlet createPetRes2 = 2;")).toBe("createPetRes3");
  });
  it("writes short values on one line and long ones indented", () => {
    expect(literal({ name: "Rex", "x-y": [1] })).toBe('{ name: "Rex", "x-y": [1] }');
    expect(literal({ a: "x".repeat(80) }, "")).toBe(`{\n  a: "${"x".repeat(80)}"\n}`);
  });
  it("fills required parameters and builds the body from required fields of a referenced schema", async () => {
    const op: Operation = {
      id: "updatePet", method: "patch", path: "/pets/{petId}", tags: [], deprecated: false, security: [], responses: {},
      parameters: [
        { name: "petId", in: "path", required: true, schema: { type: "integer" } },
        { name: "dryRun", in: "query", required: false, schema: { type: "boolean" } },
      ],
      requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/PetPatch" } } } },
    };
    const load = async (name: string) => (name === "PetPatch" ? { type: "object", required: ["name"], properties: { name: { type: "string" }, age: { type: "integer" } } } : null);
    const snippet = (await buildCallSnippet("petstore", op, load))("");
    expect(snippet).toBe(`// PATCH /pets/{petId}\n// optional: dryRun\nconst updatePetRes = await apis.petstore.updatePet({ petId: 0, body: { name: "" } });`);
  });
});
