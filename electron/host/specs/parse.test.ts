import { describe, expect, it } from "vitest";
import { parseSpecText } from "./parse.ts";

describe("parseSpecText", () => {
  it("reads JSON with JSON.parse and YAML with yaml", () => {
    expect(parseSpecText('{"openapi": "3.1.0"}')).toEqual({ ok: true, document: { openapi: "3.1.0" }, format: "json", warnings: [] });
    expect(parseSpecText("openapi: 3.1.0\ninfo:\n  title: T\n")).toMatchObject({ ok: true, document: { openapi: "3.1.0", info: { title: "T" } }, format: "yaml" });
  });

  it("skips a byte order mark", () => {
    expect(parseSpecText('\uFEFF{"a": 1}')).toMatchObject({ ok: true, document: { a: 1 } });
  });

  it("says where invalid JSON stops, by line and column", () => {
    const result = parseSpecText('{\n  "a": 1,\n  "b": ]\n}');
    expect(result).toMatchObject({ ok: false, error: { code: "parse-error", pointer: "" } });
    if (!result.ok) expect(result.error.message).toContain("line 3, column 8");
  });

  it("accepts JSON that only YAML can read, and says so", () => {
    const result = parseSpecText('{"a": 1, "b": [1, 2,],}');
    expect(result).toMatchObject({ ok: true, document: { a: 1, b: [1, 2] }, format: "yaml" });
    if (result.ok) expect(result.warnings[0]).toMatchObject({ code: "not-strict-json", pointer: "" });
  });

  it("says where invalid YAML stops", () => {
    const result = parseSpecText("openapi: 3.0.0\npaths:\n\t/x: {}\n");
    expect(result).toMatchObject({ ok: false, error: { code: "parse-error" } });
    if (!result.ok) expect(result.error.message).toMatch(/line 3, column 1: Tabs are not allowed/);
  });

  it("keeps the last of duplicate keys and reports each with its pointer and line", () => {
    const result = parseSpecText("paths:\n  /a:\n    get: {}\n    get: {summary: x}\n");
    expect(result).toMatchObject({ ok: true, document: { paths: { "/a": { get: { summary: "x" } } } } });
    if (result.ok) expect(result.warnings).toEqual([{ code: "duplicate-key", pointer: "/paths/~1a/get", message: expect.stringContaining("line 4") }]);
  });

  it("refuses a YAML alias bomb instead of expanding it", () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]`);
    expect(parseSpecText(lines.join("\n"))).toMatchObject({ ok: false, error: { code: "alias-bomb" } });
  });

  it("refuses empty and binary input with a reason", () => {
    expect(parseSpecText(" \n\t")).toMatchObject({ ok: false, error: { code: "empty-document" } });
    expect(parseSpecText("PK\u0003\u0004\u0000\u0000")).toMatchObject({ ok: false, error: { code: "not-text", message: expect.stringContaining("binary") } });
  });

  it("reports YAML nested beyond what the parser can read as too deep, without throwing", () => {
    expect(parseSpecText(`x: ${"[".repeat(20_000)}${"]".repeat(20_000)}`)).toMatchObject({ ok: false, error: { code: "too-deep" } });
  });

  it("reads 100,000 nested JSON arrays without overflowing", () => {
    expect(parseSpecText("[".repeat(100_000) + "]".repeat(100_000)).ok).toBe(true);
  });
});
