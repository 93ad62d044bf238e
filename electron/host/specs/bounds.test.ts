import { describe, expect, it } from "vitest";
import { enforceBounds } from "./bounds.ts";
import { parseSpecText } from "./parse.ts";
import { RepairReport } from "./report.ts";
import type { JsonValue } from "../../../shared/json.ts";

function nested(depth: number): JsonValue {
  let value: JsonValue = "leaf";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe("enforceBounds", () => {
  it("leaves a document within bounds untouched", () => {
    const doc = { paths: { "/a": { get: { responses: {} } } } };
    const report = new RepairReport();
    expect(enforceBounds(doc, { maxDepth: 10, maxNodes: 100 }, false, report)).toBeUndefined();
    expect(doc).toEqual({ paths: { "/a": { get: { responses: {} } } } });
    expect(report.warnings).toEqual([]);
  });

  it("cuts values nested past the depth limit and reports where", () => {
    const doc = { root: nested(50) } as { root: JsonValue };
    const report = new RepairReport();
    expect(enforceBounds(doc, { maxDepth: 10, maxNodes: 1_000 }, false, report)).toBeUndefined();
    expect(report.warnings).toEqual([{ code: "too-deep", pointer: `/root${"/a".repeat(9)}`, message: expect.stringContaining("10 levels") }]);
    expect(JSON.stringify(doc)).not.toContain("leaf");
  });

  it("refuses a document with more values than the budget", () => {
    const doc = { list: Array.from({ length: 1_000 }, (_, i) => i) };
    expect(enforceBounds(doc, { maxDepth: 10, maxNodes: 500 }, false, new RepairReport())).toMatchObject({ code: "too-large" });
  });

  it("cuts a YAML alias that contains itself, so JSON.stringify works afterwards", () => {
    const parsed = parseSpecText("components:\n  schemas:\n    Node: &node\n      properties:\n        next: *node\n");
    if (!parsed.ok) throw new Error(parsed.error.message);
    const report = new RepairReport();
    expect(enforceBounds(parsed.document, { maxDepth: 100, maxNodes: 1_000 }, true, report)).toBeUndefined();
    expect(report.warnings).toEqual([{ code: "circular-alias", pointer: "/components/schemas/Node/properties/next", message: expect.any(String) }]);
    expect(JSON.parse(JSON.stringify(parsed.document))).toEqual({ components: { schemas: { Node: { properties: { next: null } } } } });
  });
});
