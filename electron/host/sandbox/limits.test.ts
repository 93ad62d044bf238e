import { describe, expect, it } from "vitest";
import { memoryPages, resolveLimits } from "./limits.ts";
import { DEFAULT_LIMITS } from "./types.ts";

describe("resolveLimits", () => {
  it("overlays request over pool defaults over the built-in defaults, ignoring undefined", () => {
    const result = resolveLimits({ cpuMs: 500, wallMs: 900 }, { cpuMs: 200, maxCalls: undefined });
    expect(result).toEqual({ ok: true, limits: { ...DEFAULT_LIMITS, cpuMs: 200, wallMs: 900 } });
  });

  it.each([
    [{ wallMs: 0 }, "limit wallMs must be a positive integer, got 0"],
    [{ maxOutputBytes: Number.POSITIVE_INFINITY }, "limit maxOutputBytes must be a positive integer, got Infinity"],
    [{ maxLogLines: -1 }, "limit maxLogLines must be a non-negative integer, got -1"],
    [{ cpuMs: "100" as unknown as number }, 'limit cpuMs must be a positive integer, got string "100"'],
    [{ memoryBytes: 8 * 1024 * 1024 }, "limit memoryBytes must be at least 16777216 (16 MiB), got 8388608"],
    [{ memoryBytes: 5 * 1024 ** 3 }, "limit memoryBytes must be at most 4294967296 (4 GiB), got 5368709120"],
  ])("refuses %j", (limits, message) => {
    expect(resolveLimits(undefined, limits)).toEqual({ ok: false, message });
  });

  it("allows zero calls and zero log lines", () => {
    expect(resolveLimits(undefined, { maxCalls: 0, maxLogLines: 0 }).ok).toBe(true);
  });
});

describe("memoryPages", () => {
  it("rounds a byte cap down to whole 64 KiB pages, never under the 256 QuickJS starts with", () => {
    expect(memoryPages(64 * 1024 * 1024)).toBe(1024);
    expect(memoryPages(64 * 1024 * 1024 + 1000)).toBe(1024);
    expect(memoryPages(16 * 1024 * 1024)).toBe(256);
  });
});
