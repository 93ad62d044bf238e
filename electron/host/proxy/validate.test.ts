import { describe, expect, it } from "vitest";
import { artifact, operation } from "../test-support/artifacts.ts";
import { validateCall } from "./validate.ts";
import type { CallRequest } from "./types.ts";

const pet = {
  type: "object",
  required: ["id", "name"],
  properties: {
    id: { type: "integer", readOnly: true },
    name: { type: "string", maxLength: 10 },
    tag: { type: "string", nullable: true },
    age: { type: "integer", minimum: 0, exclusiveMinimum: true },
    owner: { $ref: "#/components/schemas/Owner" },
  },
  additionalProperties: false,
};
const schemas = {
  Owner: { type: "object", properties: { name: { type: "string" }, friend: { $ref: "#/components/schemas/Owner" } }, required: ["name"] },
};
const createPet = operation({
  id: "createPet",
  method: "post",
  path: "/pets",
  parameters: [
    { name: "dryRun", in: "query", required: false, schema: { type: "boolean" } },
    { name: "limit", in: "query", required: true, schema: { type: "integer", maximum: 100 } },
    { name: "X-Trace", in: "header", required: false, schema: { type: "string", pattern: "^[a-f0-9]+$" } },
  ],
  requestBody: { required: true, content: { "application/json": { schema: pet } } },
});
const api30 = artifact([createPet], { schemas });
const api31 = artifact([createPet], { schemas, schemaDialect: "openapi-3.1", openapi: "3.1.0" });

function call(partial: Partial<CallRequest>): CallRequest {
  return { api: "t", pathParams: {}, query: {}, headers: {}, cookies: {}, ...partial };
}

describe("validateCall (OpenAPI 3.0 dialect)", () => {
  it("accepts a valid call, leaving readOnly required fields out of requests", () => {
    expect(validateCall(api30, createPet, call({ query: { limit: 5 }, body: { name: "Rex", tag: null } }), {})).toEqual([]);
  });

  it("coerces query strings the way they travel", () => {
    expect(validateCall(api30, createPet, call({ query: { limit: "5", dryRun: "true" }, body: { name: "Rex" } }), {})).toEqual([]);
  });

  it("names missing required parameters and bodies", () => {
    const issues = validateCall(api30, createPet, call({}), {});
    expect(issues.map((i) => i.message)).toEqual(['missing required query parameter "limit"', "missing required request body (application/json)"]);
  });

  it("quotes the failing location and schema fragment", () => {
    const issues = validateCall(api30, createPet, call({ query: { limit: 500 }, headers: { "x-trace": "XYZ" }, body: { name: "a very long name", extra: 1 } }), {});
    const text = issues.map((i) => i.message).join("\n");
    expect(text).toContain('query.limit must be <= 100 (schema: {"type":"integer","maximum":100})');
    expect(text).toContain("header.X-Trace must match pattern");
    expect(text).toContain("body/name must NOT have more than 10 characters");
    expect(text).toContain('body must NOT have additional properties "extra"');
  });

  it("applies draft-04 exclusiveMinimum and nullable", () => {
    expect(validateCall(api30, createPet, call({ query: { limit: 1 }, body: { name: "a", age: 0 } }), {}).map((i) => i.at)).toEqual(["body/age"]);
    expect(validateCall(api30, createPet, call({ query: { limit: 1 }, body: { name: "a", tag: null } }), {})).toEqual([]);
  });

  it("follows component refs, recursive ones too", () => {
    const issues = validateCall(api30, createPet, call({ query: { limit: 1 }, body: { name: "a", owner: { name: "x", friend: { friend: {} } } } }), {});
    expect(issues.map((i) => i.at)).toEqual(["body/owner/friend", "body/owner/friend/friend"]);
    expect(issues[0]!.message).toContain("must have required property 'name'");
  });
});

describe("validateCall (OpenAPI 3.1 dialect)", () => {
  it("validates with 2020-12 semantics", () => {
    const op = operation({ id: "x", method: "post", path: "/x", requestBody: { required: true, content: { "application/json": { schema: { type: ["string", "null"], minLength: 2 } } } } });
    const api = artifact([op], { schemaDialect: "openapi-3.1" });
    expect(validateCall(api, op, call({ body: null }), {})).toEqual([]);
    expect(validateCall(api, op, call({ body: "a" }), {}).map((i) => i.at)).toEqual(["body"]);
    expect(validateCall(api31, createPet, call({ query: { limit: 1 }, body: { name: "ok" } }), {})).toEqual([]);
  });

  it("does not blame the call for a broken schema in the spec", () => {
    const op = operation({ id: "y", method: "get", path: "/y", parameters: [{ name: "q", in: "query", required: false, schema: { type: "strnig" } }] });
    expect(validateCall(artifact([op]), op, call({ query: { q: "x" } }), {})).toEqual([]);
  });
});
