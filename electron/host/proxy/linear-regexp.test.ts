import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { linearRegExpEngine, takeUncheckedPatterns, toRe2Syntax } from "./linear-regexp.ts";

describe("the linear-time engine for spec patterns", () => {
  it("keeps each pattern apart inside one ajv instance, in both dialects (ajv caches patterns by their text)", () => {
    for (const Dialect of [Ajv, Ajv2020]) {
      const ajv = new Dialect({ strict: false, allErrors: true, code: { regExp: linearRegExpEngine } });
      const first = ajv.compile({ type: "string", pattern: "^b+$" });
      const second = ajv.compile({ type: "object", properties: { code: { type: "string", pattern: "^(a|aa)+$" } } });
      expect(first("bbb")).toBe(true);
      expect(second({ code: "aaa" })).toBe(true);
      expect(second({ code: "aab!" })).toBe(false);
      expect(second({ code: "bbb" })).toBe(false);
    }
  });

  it("answers a catastrophic pattern on a long input at once, where V8's engine would backtrack for minutes", () => {
    const re = linearRegExpEngine("^(a+)+$", "u");
    expect(re.test(`${"a".repeat(100_000)}!`)).toBe(false);
    expect(re.test("a".repeat(100_000))).toBe(true);
  });

  it("spells ECMAScript's \\u escapes as RE2's \\x{...}, leaving an escaped backslash alone", () => {
    expect(toRe2Syntax("^\\u00e9$")).toBe("^\\x{00e9}$");
    expect(toRe2Syntax("\\u{1F600}")).toBe("\\x{1F600}");
    expect(toRe2Syntax("\\\\u0041")).toBe("\\\\u0041");
    expect(linearRegExpEngine("^\\u00e9+$", "u").test("éé")).toBe(true);
  });

  it("does not check a pattern RE2 cannot run (lookahead, backreferences), and reports it", () => {
    takeUncheckedPatterns();
    expect(linearRegExpEngine("^(?=x)y$", "u").test("anything")).toBe(true);
    expect(linearRegExpEngine("(a)\\1", "u").test("ab")).toBe(true);
    expect(takeUncheckedPatterns()).toEqual(["^(?=x)y$", "(a)\\1"]);
  });
});
