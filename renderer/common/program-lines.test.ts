import { describe, expect, it } from "vitest";
import { linesCalling } from "./program-lines.ts";

describe("linesCalling", () => {
  const code = `const a = await apis.petstore.listPets({});\nconst b = await apis.petstore.createPet({ body: {} });\nreturn b;`;
  it("finds the line calling the operation by id", () => {
    expect(linesCalling(code, "createPet", "POST /pets")).toEqual([2]);
  });
  it("falls back to request() calls", () => {
    expect(linesCalling(`await apis.x.request({ method: "POST", path: "/pets" })`, undefined, "POST /pets")).toEqual([1]);
  });
});
