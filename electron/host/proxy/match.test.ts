import { describe, expect, it } from "vitest";
import { artifact, operation } from "../test-support/artifacts.ts";
import { matchPath, operationById } from "./match.ts";
import type { CallFailure } from "./types.ts";

const api = artifact([
  operation({ id: "listPets", method: "get", path: "/pets" }),
  operation({ id: "getPet", method: "get", path: "/pets/{petId}" }),
  operation({ id: "getMine", method: "get", path: "/pets/mine" }),
  operation({ id: "deletePet", method: "delete", path: "/pets/{petId}" }),
  operation({ id: "getFile", method: "get", path: "/files/{name}.{ext}" }),
  operation({ id: "listOrders", method: "get", path: "/stores/{storeId}/orders" }),
]);

describe("matchPath", () => {
  it("matches templates and decodes path parameters", () => {
    const m = matchPath(api, "get", "/pets/a%20b");
    expect(m.operation.id).toBe("getPet");
    expect(m.pathParams).toEqual({ petId: "a b" });
  });

  it("prefers literal segments over parameters", () => {
    expect(matchPath(api, "get", "/pets/mine").operation.id).toBe("getMine");
  });

  it("matches several parameters in one segment", () => {
    expect(matchPath(api, "get", "/files/report.pdf").pathParams).toEqual({ name: "report", ext: "pdf" });
  });

  it("accepts the base URL's path prefix once", () => {
    expect(matchPath(api, "get", "/v2/pets", "/v2").operation.id).toBe("listPets");
  });

  it("names the nearest operations on a miss, and the methods a path does have", () => {
    let error: CallFailure | undefined;
    try {
      matchPath(api, "post", "/pets/42");
    } catch (err) {
      error = err as CallFailure;
    }
    expect(error?.callError.name).toBe("CallRejected");
    expect(error?.message).toMatch(/No operation matches POST \/pets\/42/);
    expect(error?.message).toMatch(/exists for GET, DELETE/);
    expect(error?.message).toMatch(/GET \/pets\/\{petId\} \(getPet\)/);
    const nearest = error!.message.split("Nearest: ")[1]!.split("; ");
    expect(nearest.length).toBeGreaterThanOrEqual(3);
    expect(nearest.length).toBeLessThanOrEqual(5);
  });

  it("looks up bindings by id and suggests near ids", () => {
    expect(operationById(api, "getPet").path).toBe("/pets/{petId}");
    expect(() => operationById(api, "getPets")).toThrow(/No operation getPets\. Nearest: GET \/pets\/\{petId\} \(getPet\)/);
  });
});
