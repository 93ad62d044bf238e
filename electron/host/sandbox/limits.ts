/**
 * Per-run limits: the pool's defaults overlaid with a request's overrides, then
 * checked, so a bad value (a negative timeout, a 1 MiB memory cap) becomes a
 * failed run that says which limit was wrong instead of a sandbox that never
 * starts or never stops.
 */
import { DEFAULT_LIMITS, type RunLimits } from "./types.ts";

/** 64 KiB: the unit of WebAssembly.Memory. */
export const WASM_PAGE_BYTES = 64 * 1024;
/** The QuickJS build starts with 256 pages; its memory cannot be capped below that. */
export const MIN_MEMORY_BYTES = 256 * WASM_PAGE_BYTES;
/** wasm32 addresses at most 65,536 pages (4 GiB). */
export const MAX_MEMORY_BYTES = 65_536 * WASM_PAGE_BYTES;

export type LimitsResult = { ok: true; limits: RunLimits } | { ok: false; message: string };

export function resolveLimits(defaults: Partial<RunLimits> | undefined, overrides: Partial<RunLimits> | undefined): LimitsResult {
  const limits: RunLimits = { ...DEFAULT_LIMITS, ...stripUndefined(defaults), ...stripUndefined(overrides) };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof RunLimits)[]) {
    const value = limits[key];
    const allowZero = key === "maxCalls" || key === "maxLogLines" || key === "maxLogBytes";
    if (typeof value !== "number" || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
      return { ok: false, message: `limit ${key} must be ${allowZero ? "a non-negative" : "a positive"} integer, got ${describe(value)}` };
    }
  }
  if (limits.memoryBytes < MIN_MEMORY_BYTES) {
    return { ok: false, message: `limit memoryBytes must be at least ${MIN_MEMORY_BYTES} (16 MiB), got ${limits.memoryBytes}` };
  }
  if (limits.memoryBytes > MAX_MEMORY_BYTES) {
    return { ok: false, message: `limit memoryBytes must be at most ${MAX_MEMORY_BYTES} (4 GiB), got ${limits.memoryBytes}` };
  }
  return { ok: true, limits };
}

/** The WebAssembly.Memory maximum, in pages, for a byte cap (rounded down to whole pages). */
export function memoryPages(memoryBytes: number): number {
  return Math.max(256, Math.floor(memoryBytes / WASM_PAGE_BYTES));
}

function stripUndefined(limits: Partial<RunLimits> | undefined): Partial<RunLimits> {
  if (!limits) return {};
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}

function describe(value: unknown): string {
  return typeof value === "number" ? String(value) : `${typeof value} ${JSON.stringify(value) ?? String(value)}`;
}
