import { describe, expect, it } from "vitest";
import { truncateResult } from "./truncate.ts";

describe("truncateResult", () => {
  it("leaves a result under the limit alone", () => {
    expect(truncateResult({ a: [1, 2, 3] }, 100)).toEqual({ value: { a: [1, 2, 3] } });
  });

  it("cuts structurally: valid JSON, same shape, first items kept, and says what was cut", () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `pet ${i}`, notes: "x".repeat(300) }));
    const { value, note } = truncateResult({ total: 5000, items }, 1000);
    const text = JSON.stringify(value);
    expect(text.length).toBeLessThanOrEqual(4000);
    const kept = (value as { items: unknown[] }).items;
    expect((value as { total: number }).total).toBe(5000);
    expect(kept[0]).toMatchObject({ id: 0, name: "pet 0" });
    expect(kept.at(-1)).toMatch(/^… \d+ more items$/);
    expect(note).toMatch(/result\.items kept \d+ of 5000 items/);
    expect(note).toMatch(/return less/);
  });

  it("shortens one huge string", () => {
    const { value, note } = truncateResult("y".repeat(100_000), 100);
    expect(typeof value).toBe("string");
    expect((value as string).length).toBeLessThan(400);
    expect(note).toMatch(/1 long strings shortened/);
  });

  it("omits a result that cannot be cut small enough, saying so", () => {
    const wide = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`.repeat(20), i]));
    const { value, note } = truncateResult(wide, 5);
    expect(value).toBeNull();
    expect(note).toMatch(/result omitted/);
  });
});
