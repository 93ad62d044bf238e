import { describe, expect, it } from "vitest";
import { assignOperationIds, derivedId, isUsableOperationId, type OperationKey } from "./operation-ids.ts";
import { RepairReport } from "./report.ts";

const op = (method: OperationKey["method"], path: string, operationId?: string): OperationKey => ({
  method, path, pointer: `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`, ...(operationId === undefined ? {} : { operationId }),
});

describe("assignOperationIds", () => {
  it("keeps operationIds that are usable identifiers, silently", () => {
    const report = new RepairReport();
    expect(assignOperationIds([op("get", "/pets", "listPets"), op("post", "/pets", "createPet")], report)).toEqual(["listPets", "createPet"]);
    expect(report.warnings).toEqual([]);
  });

  it("camel-cases operationIds that are not identifiers, and says so", () => {
    const report = new RepairReport();
    expect(assignOperationIds([op("get", "/repos/{owner}/{repo}/contents/{path}", "repos/get-content"), op("get", "/x", "2fa.enable")], report)).toEqual(["reposGetContent", "_2faEnable"]);
    expect(report.warnings).toEqual([
      { code: "sanitized-operation-id", pointer: "/paths/~1repos~1{owner}~1{repo}~1contents~1{path}/get/operationId", message: expect.stringContaining("call it as reposGetContent") },
      { code: "sanitized-operation-id", pointer: "/paths/~1x/get/operationId", message: expect.stringContaining("_2faEnable") },
    ]);
  });

  it("derives ids from method and path when missing, duplicated or reserved", () => {
    const report = new RepairReport();
    const ids = assignOperationIds(
      [op("get", "/pets/{petId}", "getPet"), op("delete", "/pets/{petId}", "getPet"), op("get", "/"), op("post", "/jobs", "then"), op("put", "/jobs", "request")],
      report,
    );
    expect(ids).toEqual(["getPet", "deletePetsById", "getRoot", "postJobs", "putJobs"]);
    expect(report.warnings.map((w) => [w.code, w.pointer])).toEqual([
      ["duplicate-operation-id", "/paths/~1pets~1{petId}/delete/operationId"],
      ["derived-operation-id", "/paths/~1/get"],
      ["derived-operation-id", "/paths/~1jobs/post/operationId"],
      ["derived-operation-id", "/paths/~1jobs/put/operationId"],
    ]);
  });

  it("never lets a repaired id take a name the spec gave another operation verbatim", () => {
    // "list-pets" would camel-case to "listPets", which a later operation owns.
    const ids = assignOperationIds([op("get", "/a", "list-pets"), op("get", "/b", "listPets")], new RepairReport());
    expect(ids).toEqual(["getA", "listPets"]);
  });

  it("names an operationId that only spells out its method and path after the operation instead, and says so", () => {
    const report = new RepairReport();
    const ids = assignOperationIds([op("get", "/person/{person_id}/movie_credits", "GET_person-person_id-movie_credits"), op("get", "/movie/{movie_id}", "get-movie-movie_id"), op("get", "/search/code", "search/code")], report);
    expect(ids).toEqual(["getPersonMovieCredits", "getMovieById", "searchCode"]);
    expect(report.warnings).toEqual([
      { code: "sanitized-operation-id", pointer: "/paths/~1search~1code/get/operationId", message: expect.stringContaining("call it as searchCode") },
      { code: "derived-operation-id", pointer: "/paths/~1person~1{person_id}~1movie_credits/get/operationId", message: 'operationId "GET_person-person_id-movie_credits" only spells out its method and path; call it as getPersonMovieCredits' },
      { code: "derived-operation-id", pointer: "/paths/~1movie~1{movie_id}/get/operationId", message: 'operationId "get-movie-movie_id" only spells out its method and path; call it as getMovieById' },
    ]);
  });

  it("gives the short name to the operation without parameters in the middle when two readable names meet", () => {
    expect(assignOperationIds([op("get", "/a/{x}/b"), op("get", "/a/b")], new RepairReport())).toEqual(["getAByXB", "getAB"]);
    // A name the spec gave verbatim is never taken.
    expect(assignOperationIds([op("get", "/pets/{petId}"), op("get", "/x", "getPetsById")], new RepairReport())).toEqual(["getPetsByPetId", "getPetsById"]);
  });

  it("keeps derived ids unique", () => {
    const ids = assignOperationIds([op("get", "/a-b"), op("get", "/a_b"), op("get", "/a/b")], new RepairReport());
    expect(new Set(ids).size).toBe(3);
    expect(ids.every(isUsableOperationId)).toBe(true);
  });
});

describe("derivedId", () => {
  it("reads like the operation", () => {
    expect(derivedId("get", "/person/{person_id}/movie_credits")).toBe("getPersonMovieCredits");
    expect(derivedId("get", "/pets/{petId}/photos")).toBe("getPetsPhotos");
    expect(derivedId("get", "/pets/{petId}")).toBe("getPetsById");
    expect(derivedId("get", "/categories/{categoryId}")).toBe("getCategoriesById");
    expect(derivedId("patch", "/v1/user-settings/{setting_name}")).toBe("patchV1UserSettingsByName");
    expect(derivedId("get", "/repos/{owner}/{repo}")).toBe("getReposByOwnerAndRepo");
    expect(derivedId("get", "/trending/{media_type}/{time_window}")).toBe("getTrendingByMediaTypeAndTimeWindow");
    expect(derivedId("get", "/{id}")).toBe("getById");
    expect(derivedId("get", "/")).toBe("getRoot");
  });
});
