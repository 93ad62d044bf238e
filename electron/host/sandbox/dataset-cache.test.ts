import { describe, expect, it } from "vitest";
import { DatasetCache } from "./dataset-cache.ts";

describe("DatasetCache", () => {
  it("parses once and returns the same data", () => {
    const cache = new DatasetCache(1_000);
    cache.add("a", '{"x":1}', new Set(["a"]));
    expect(cache.get("a")).toEqual({ x: 1 });
    expect(cache.get("a")).toBe(cache.get("a"));
    expect(cache.get("missing")).toBeUndefined();
  });

  it("evicts the least recently used keys past its bound, never the ones in use", () => {
    const cache = new DatasetCache(30);
    const text = JSON.stringify({ pad: "x".repeat(2) }); // 12 characters
    cache.add("a", text, new Set(["a"]));
    cache.add("b", text, new Set(["b"]));
    cache.get("a"); // a is now more recent than b
    cache.add("c", text, new Set(["c"]));
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).toEqual([true, false, true]);
    cache.add("d", text, new Set(["a", "c", "d"]));
    expect(cache.size).toBe(3);
    expect(cache.totalChars).toBe(36); // over the bound: everything left is in use
  });

  it("throws on invalid JSON and keeps nothing", () => {
    const cache = new DatasetCache(100);
    expect(() => cache.add("bad", "{nope", new Set())).toThrow(SyntaxError);
    expect(cache.has("bad")).toBe(false);
    expect(cache.totalChars).toBe(0);
  });
});
