import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { githubSpecPath } from "../../../scripts/fixtures.ts";
import type { Artifact } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { buildEditorDeclarations } from "../handlers/declarations.ts";
import { validateCall } from "../proxy/validate.ts";
import { ingest } from "../specs/ingest.ts";
import { typeErrors } from "../test-support/typecheck.ts";
import { read } from "./spec-reader.ts";
import { schemaType, typeContext } from "./typescript.ts";

const json = { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } };
const SPEC = {
  openapi: "3.0.3",
  info: { title: "Shop", version: "1" },
  paths: {
    "/pets": { post: { operationId: "createPet", requestBody: { required: true, content: json }, responses: { "201": { description: "made", content: json } } } },
    "/pets/{petId}": { get: { operationId: "getPet", parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }], responses: { "200": { description: "ok", content: json } } } },
    "/orders": {
      post: {
        operationId: "placeOrder",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } } },
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } } } },
      },
    },
    "/users": {
      post: {
        operationId: "createUser",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } } },
        responses: { "201": { description: "made", content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } } } },
      },
    },
    "/reviews": {
      get: { operationId: "listReviews", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/pull-request" } } } } } } },
      post: { operationId: "postReview", requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/PullRequest" } } } }, responses: { "204": { description: "ok" } } },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: "object",
        required: ["id", "name"],
        properties: { id: { type: "integer", readOnly: true }, name: { type: "string" }, status: { type: "string", enum: ["available", "sold"], nullable: true }, kind: { const: "pet", nullable: true } },
      },
      Order: { type: "object", required: ["pet", "quantity"], properties: { pet: { $ref: "#/components/schemas/Pet" }, quantity: { type: "integer" } } },
      User: { type: "object", required: ["login", "password"], properties: { login: { type: "string" }, password: { type: "string", writeOnly: true } } },
      "pull-request": { type: "object", required: ["number"], properties: { number: { type: "integer" } } },
      PullRequest: { type: "object", required: ["title"], properties: { title: { type: "string" } } },
    },
  },
};

function artifactOf(spec: object): Artifact {
  const result = ingest(JSON.stringify(spec));
  if (!result.ok) throw new Error(result.error.message);
  return result.artifact;
}

/** Each program in its own module, type-checked against the declarations; the errors of each. */
function check(dts: string, programs: Record<string, string>): Record<string, string[]> {
  const files = Object.fromEntries(Object.entries(programs).map(([name, code]) => [`${name}.ts`, `export {};\nasync function main() {\n${code}\n}\n`]));
  const errors = typeErrors({ "apis.d.ts": dts, ...files });
  return Object.fromEntries(Object.entries(errors).map(([file, list]) => [file.replace(/\.ts$/, ""), list]));
}

describe("declarations for the editor and declaration(id)", () => {
  const shop = artifactOf(SPEC);
  const dts = buildEditorDeclarations([{ name: "shop", artifact: shop }], []);

  it("gives two schemas whose names read alike two types", () => {
    expect(dts).toContain("interface PullRequest {");
    expect(dts).toContain("interface PullRequest_2 {");
    const errors = check(dts, {
      listed: "const r = await apis.shop.listReviews(); const n: number = r.body[0]!.number; return n;",
      posted: 'await apis.shop.postReview({ body: { title: "Fix" } });',
      swapped: "await apis.shop.postReview({ body: { number: 1 } });",
    });
    expect(errors["apis.d"]).toEqual([]);
    expect(errors.listed).toEqual([]);
    expect(errors.posted).toEqual([]);
    expect(errors.swapped!.join("\n")).toMatch(/number/);
  });

  it("reads readOnly and writeOnly as the request validator does", () => {
    const bodies: Record<string, { op: string; body: JsonValue }> = {
      petWithoutId: { op: "createPet", body: { name: "Rex" } },
      petWithoutName: { op: "createPet", body: { id: 1 } },
      orderOfPetWithoutId: { op: "placeOrder", body: { pet: { name: "Rex" }, quantity: 1 } },
      userWithoutPassword: { op: "createUser", body: { login: "ann" } },
      userWithPassword: { op: "createUser", body: { login: "ann", password: "pw" } },
    };
    const programs = Object.fromEntries(Object.entries(bodies).map(([name, { op, body }]) => [name, `await apis.shop.${op}({ body: ${JSON.stringify(body)} });`]));
    const errors = check(dts, {
      ...programs,
      // Responses: the readOnly id is there; the writeOnly password is not promised.
      responseHasId: "const id: number = (await apis.shop.getPet({ petId: 1 })).body.id; return id;",
      responseMayLackPassword: "const p: string = (await apis.shop.createUser({ body: { login: 'a', password: 'b' } })).body.password; return p;",
    });
    for (const [name, { op, body }] of Object.entries(bodies)) {
      const operation = shop.operations.find((o) => o.id === op)!;
      const validatorAccepts = validateCall(shop, operation, { api: "shop", pathParams: {}, query: {}, headers: {}, cookies: {}, body }, {}).length === 0;
      expect({ name, compiles: errors[name]!.length === 0 }).toEqual({ name, compiles: validatorAccepts });
    }
    expect(errors.petWithoutId).toEqual([]);
    expect(errors.userWithoutPassword).not.toEqual([]);
    expect(errors.responseHasId).toEqual([]);
    expect(errors.responseMayLackPassword!.join("\n")).toMatch(/undefined/);
    expect(dts).toContain("interface PetInput {");
    expect(dts).toContain("interface OrderInput {");
  });

  it("keeps nullable on enum and const", () => {
    const ctx = typeContext(shop, "response");
    expect(schemaType({ type: "string", enum: ["a", "b"], nullable: true }, ctx)).toBe('"a" | "b" | null');
    expect(schemaType({ const: "x", nullable: true }, ctx)).toBe('"x" | null');
    expect(schemaType({ enum: ["a", null], nullable: true }, ctx)).toBe('"a" | null');
    const errors = check(dts, {
      nulls: "const p = (await apis.shop.getPet({ petId: 1 })).body; const s: 'available' | 'sold' | null | undefined = p.status; const k: 'pet' | null | undefined = p.kind; return [s, k];",
      wrongStatus: 'await apis.shop.createPet({ body: { name: "Rex", status: "lost" } });',
    });
    expect(errors.nulls).toEqual([]);
    expect(errors.wrongStatus!.join("\n")).toMatch(/lost/);
  });

  it("declaration(id) is the same truth, and type-checks a call on its own", () => {
    const declaration = String(read(shop, { q: "declaration", id: "placeOrder" })).replace("<api>", "shop");
    expect(declaration).toContain("interface OrderInput");
    expect(declaration).toContain("interface PetInput");
    const errors = typeErrors({
      "declaration.d.ts": declaration,
      "ok.ts": "export {};\nvoid placeOrder({ body: { pet: { name: 'Rex' }, quantity: 2 } });",
      "bad.ts": "export {};\nvoid placeOrder({ body: { pet: { name: 'Rex' } } });",
    });
    expect(errors["declaration.d.ts"]).toEqual([]);
    expect(errors["ok.ts"]).toEqual([]);
    expect(errors["bad.ts"]!.join("\n")).toMatch(/quantity/);
  });
});

describe("declarations against GitHub's REST API spec", () => {
  let github: Artifact;
  beforeAll(() => {
    github = artifactOf(JSON.parse(readFileSync(githubSpecPath(), "utf8")));
  }, 120_000);

  it("the editor's .d.ts type-checks right calls and refuses wrong ones", () => {
    const dts = buildEditorDeclarations([{ name: "github", artifact: github }], []);
    const errors = check(dts, {
      listPulls: 'const r = await apis.github.pullsList({ owner: "o", repo: "r", state: "open", per_page: 10 }); const titles: string[] = r.body.map((p) => p.title); return titles;',
      createIssue: 'const r = await apis.github.issuesCreate({ owner: "o", repo: "r", body: { title: "Bug", labels: ["bug"] } }); const n: number = r.body.number; return n;',
      createRepo: 'await apis.github.reposCreateForAuthenticatedUser({ body: { name: "x", private: true } });',
      missingRepo: 'await apis.github.pullsList({ owner: "o" });',
      badState: 'await apis.github.pullsList({ owner: "o", repo: "r", state: "merged" });',
      issueWithoutTitle: 'await apis.github.issuesCreate({ owner: "o", repo: "r", body: { labels: ["bug"] } });',
      misspelledOperation: 'await apis.github.pullList({ owner: "o", repo: "r" });',
    });
    expect(errors["apis.d"]).toEqual([]);
    expect(errors.listPulls).toEqual([]);
    expect(errors.createIssue).toEqual([]);
    expect(errors.createRepo).toEqual([]);
    expect(errors.missingRepo!.join("\n")).toMatch(/repo/);
    expect(errors.badState!.join("\n")).toMatch(/merged/);
    expect(errors.issueWithoutTitle!.join("\n")).toMatch(/title/);
    expect(errors.misspelledOperation!.join("\n")).toMatch(/pullList/);
  }, 60_000);

  it("declaration(id) type-checks on its own, however many types it leaves out", () => {
    const declaration = String(read(github, { q: "declaration", id: "pullsList" })).replace("<api>", "github");
    const errors = typeErrors({
      "declaration.d.ts": declaration,
      "ok.ts": 'export {};\nvoid pullsList({ owner: "o", repo: "r", state: "closed" });',
      "bad.ts": 'export {};\nvoid pullsList({ owner: "o", repo: "r", state: "merged" });',
    });
    expect(errors["declaration.d.ts"]).toEqual([]);
    expect(errors["ok.ts"]).toEqual([]);
    expect(errors["bad.ts"]!.join("\n")).toMatch(/merged/);
    // Public events use more types than declaration(id) shows: the rest are named, declared unknown.
    const events = String(read(github, { q: "declaration", id: "activityListPublicEvents" }));
    expect(events).toMatch(/more types used here, not shown/);
    expect(typeErrors({ "events.d.ts": events, "ok.ts": "export {};\nvoid activityListPublicEvents({ per_page: 5 });" })).toEqual({ "events.d.ts": [], "ok.ts": [] });
  }, 60_000);
});
