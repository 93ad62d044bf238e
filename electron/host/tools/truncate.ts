/**
 * Results are capped structurally, not by chopping text: the value stays valid
 * JSON with the same shape, long arrays keep their first items, long strings
 * their start, deep nesting its top. A note says what was cut and how to ask for
 * less, because a model that sees a clean cut learns to filter, and one that
 * sees broken JSON learns nothing. Sizes are estimated at 4 characters a token.
 *
 * Nesting is cut below MAX_DEPTH levels even when the value is small: a result
 * nested 3,000 deep is 6 KB as compact JSON and 18 MB pretty-printed.
 */
import type { JsonValue } from "../../../shared/json.ts";

export const CHARS_PER_TOKEN = 4;

export interface Truncation {
  value: JsonValue;
  /** Undefined when nothing was cut. */
  note?: string;
}

interface Limits {
  maxItems: number;
  maxString: number;
  maxDepth: number;
  maxKeys: number;
}

interface CutLog {
  arrays: { path: string; kept: number; total: number }[];
  strings: number;
  objects: { path: string; kept: number; total: number }[];
  depth: number;
}

/** Deeper than this is cut whatever the size. */
export const MAX_DEPTH = 32;

/** Progressively tighter shapes; the first that fits wins. */
const SCHEDULE: Limits[] = [
  { maxItems: Infinity, maxString: Infinity, maxDepth: MAX_DEPTH, maxKeys: Infinity },
  { maxItems: 200, maxString: 4000, maxDepth: 24, maxKeys: 400 },
  { maxItems: 100, maxString: 2000, maxDepth: 16, maxKeys: 200 },
  { maxItems: 50, maxString: 1000, maxDepth: 12, maxKeys: 100 },
  { maxItems: 25, maxString: 500, maxDepth: 10, maxKeys: 60 },
  { maxItems: 10, maxString: 200, maxDepth: 8, maxKeys: 40 },
  { maxItems: 5, maxString: 100, maxDepth: 6, maxKeys: 20 },
  { maxItems: 3, maxString: 60, maxDepth: 4, maxKeys: 10 },
  { maxItems: 1, maxString: 40, maxDepth: 3, maxKeys: 5 },
];

/**
 * Cuts `value` (named `what` in the note: "result", "pending.arguments") to
 * about `maxTokens`; the note names `shownLimit` (the whole answer's budget,
 * when the value gets only part of it).
 */
export function truncateResult(value: JsonValue, maxTokens: number, what = "result", shownLimit = maxTokens): Truncation {
  const budget = maxTokens * CHARS_PER_TOKEN;
  const deep = deeperThan(value, MAX_DEPTH);
  // Stringifying a value thousands of levels deep can overflow the stack: its size is measured once cut.
  const size = deep ? undefined : jsonLength(value);
  if (size !== undefined && size <= budget) return { value };
  for (const limits of SCHEDULE) {
    const log: CutLog = { arrays: [], strings: 0, objects: [], depth: 0 };
    const shrunk = shrink(value, limits, what, 0, log);
    if (jsonLength(shrunk) <= budget) return { value: shrunk, note: describeCuts(what, log, size, shownLimit) };
  }
  const about = size === undefined ? `nested more than ${MAX_DEPTH} levels deep` : `about ${Math.ceil(size / CHARS_PER_TOKEN)} tokens`;
  const advice = what === "result" ? " Return only the fields you need (map, filter, slice) or a count." : "";
  return { value: null, note: `${what} omitted: ${about}, over the ${shownLimit}-token limit even when cut down.${advice}` };
}

/** A string cut to `max` characters, saying how many more there were. */
export function cutString(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** A string cut in the middle, keeping its end too (where an error says its line, or "nothing was sent"). */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.min(80, Math.floor(max / 4));
  return `${text.slice(0, max - tail)}… [${text.length - max} characters cut] …${text.slice(text.length - tail)}`;
}

function jsonLength(value: JsonValue): number {
  return JSON.stringify(value)?.length ?? 4;
}

/** Whether `value` nests more than `limit` arrays or objects, without walking further than that. */
export function deeperThan(value: JsonValue, limit: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (limit <= 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => deeperThan(child, limit - 1));
}

function shrink(value: JsonValue, limits: Limits, path: string, depth: number, log: CutLog): JsonValue {
  if (typeof value === "string") {
    if (value.length <= limits.maxString) return value;
    log.strings++;
    return cutString(value, limits.maxString);
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= limits.maxDepth) {
    log.depth++;
    return Array.isArray(value) ? [`… [array of ${value.length} cut: too deep]`] : { "…": "object cut: too deep" };
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, limits.maxItems).map((v, i) => shrink(v, limits, `${path}[${i}]`, depth + 1, log));
    if (value.length > limits.maxItems) {
      log.arrays.push({ path, kept: limits.maxItems, total: value.length });
      kept.push(`… ${value.length - limits.maxItems} more items`);
    }
    return kept;
  }
  const entries = Object.entries(value);
  const out: Record<string, JsonValue> = {};
  for (const [key, v] of entries.slice(0, limits.maxKeys)) out[key] = shrink(v, limits, `${path}.${cutString(key, 40)}`, depth + 1, log);
  if (entries.length > limits.maxKeys) {
    log.objects.push({ path, kept: limits.maxKeys, total: entries.length });
    out["…"] = `${entries.length - limits.maxKeys} more keys`;
  }
  return out;
}

function describeCuts(what: string, log: CutLog, size: number | undefined, maxTokens: number): string {
  const parts: string[] = [];
  const arrays = log.arrays.slice(0, 3).map((a) => `${cutString(a.path, 120)} kept ${a.kept} of ${a.total} items`);
  if (arrays.length) parts.push(`${arrays.join(", ")}${log.arrays.length > 3 ? ` (and ${log.arrays.length - 3} more arrays)` : ""}`);
  if (log.objects.length) parts.push(`${log.objects.length} objects kept only their first keys`);
  if (log.strings) parts.push(`${log.strings} long strings shortened`);
  if (log.depth) parts.push(`${log.depth} values cut for depth`);
  const from = size === undefined ? "" : ` from about ${Math.ceil(size / CHARS_PER_TOKEN)}`;
  const advice = what === "result" ? " To see everything, return less: select fields, filter, paginate, or slice." : "";
  return `${what} cut${from} to at most ${maxTokens} tokens: ${parts.join("; ")}.${advice}`;
}
