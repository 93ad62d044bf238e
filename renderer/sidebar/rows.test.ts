import { describe, expect, it } from "vitest";
import type { ApiSummary, OperationRow } from "../../shared/contract.ts";
import { buildRows, FOLD_GROUPS_ABOVE } from "./rows.ts";

const api = (name: string, operationCount: number): ApiSummary => ({
  name, title: name, version: "1", openapi: "3.1.0", operationCount, baseUrl: "", source: { kind: "file" },
  config: { validate: "strict", maxResponseBytes: 1, timeoutMs: 1, passthroughHeaders: [], responseHeaders: [] },
  warningCount: 0, tags: [{ name: "pets" }], securitySchemes: {},
});
const op = (id: string, method: string, path: string, tags: string[], summary?: string): OperationRow => ({ id, method, path, tags, deprecated: false, ...(summary ? { summary } : {}) });
const ops = [op("listPets", "get", "/pets", ["pets"], "List pets"), op("createPet", "post", "/pets", ["pets"], "Add a pet"), op("ping", "get", "/ping", [])];
const base = { collapsedApis: new Set<string>(), toggledGroups: new Set<string>(), mode: "tag" as const, filter: { text: "", methods: new Set<string>(), tag: "" } };

describe("buildRows", () => {
  it("groups by tag in the spec's order, untagged last", () => {
    const rows = buildRows({ ...base, apis: [api("p", 3)], operations: new Map([["p", { rows: ops }]]) });
    expect(rows.map((r) => (r.kind === "op" ? r.op.id : r.kind === "group" ? `#${r.name}` : r.kind))).toEqual(["api", "#pets", "listPets", "createPet", "#(untagged)", "ping"]);
  });
  it("groups by first path segment", () => {
    const rows = buildRows({ ...base, mode: "path", apis: [api("p", 3)], operations: new Map([["p", { rows: ops }]]) });
    expect(rows.filter((r) => r.kind === "group").map((r) => (r.kind === "group" ? r.name : ""))).toEqual(["/pets", "/ping"]);
  });
  it("folds groups of big APIs until asked", () => {
    const many = Array.from({ length: FOLD_GROUPS_ABOVE + 1 }, (_, i) => op(`op${i}`, "get", `/x/${i}`, ["x"]));
    const rows = buildRows({ ...base, apis: [api("big", many.length)], operations: new Map([["big", { rows: many }]]) });
    expect(rows.map((r) => r.kind)).toEqual(["api", "group"]);
  });
  it("searches flat, best match first, and filters by method", () => {
    const rows = buildRows({ ...base, filter: { text: "pet", methods: new Set(["POST"]), tag: "" }, apis: [api("p", 3)], operations: new Map([["p", { rows: ops }]]) });
    expect(rows.map((r) => (r.kind === "op" ? r.op.id : r.kind))).toEqual(["api", "createPet"]);
  });
  it("hides an API with no match while filtering", () => {
    const rows = buildRows({ ...base, filter: { text: "nothing-like-this", methods: new Set(), tag: "" }, apis: [api("p", 3)], operations: new Map([["p", { rows: ops }]]) });
    expect(rows).toEqual([]);
  });
});
