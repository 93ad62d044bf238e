/**
 * One way to keep a JSON document in the data directory, for every store that
 * keeps one (registry.json, vault.json, programs.json, mcp.json,
 * serve.lock.json): read, validate with zod, write atomically and owner-only,
 * and move a file that cannot be understood aside instead of overwriting it.
 * Each store used to do this its own way, and they drifted: one overwrote an
 * unreadable file, one copied it aside on every command.
 *
 * The rules, for every file:
 * - a missing file is not a problem (the store starts empty);
 * - a file that is not JSON, or not the document's shape, is moved to
 *   `<name>.unreadable-<time>` (never deleted, never overwritten), once: the
 *   next read finds no file;
 * - a file from a newer workbench (a `format` above the one this build knows)
 *   is left exactly as it is, and the store refuses to write it;
 * - a file that cannot be read at all (permissions, a folder in its place) is
 *   left alone and reported: moving a healthy file aside because it was
 *   briefly unreadable would be the worst outcome;
 * - a file whose document is sound but holds some damaged entries is the
 *   store's to judge (it keeps what it can); `keepCopyOnce` saves the file as
 *   found, once per distinct damage, so the person has the original;
 * - writes go through a temp file, fsync and rename, mode 0600; a file found
 *   readable by others is tightened when read.
 */
import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { z } from "zod";
import { writeFileAtomic } from "./atomic-file.ts";

export interface JsonFileSpec<T> {
  path: string;
  /** The document's shape; entries a store wants to judge one by one are `z.unknown()` here. */
  schema: z.ZodType<T>;
  /** The format this build reads and writes. A document whose numeric `format` is higher is from a newer workbench. */
  format?: number;
}

export type JsonFileState<T> =
  | { status: "ok"; value: T; text: string }
  | { status: "missing" }
  /** Not JSON or not the document's shape: `readJsonFile` moves it aside; `inspectJsonFile` leaves it. */
  | { status: "damaged"; problem: string }
  | { status: "newer"; problem: string }
  /** Could not be read at all (EACCES, EISDIR, ...): left alone. */
  | { status: "unreadable"; problem: string };

export type JsonFileRead<T> =
  | Exclude<JsonFileState<T>, { status: "damaged" }>
  | { status: "moved-aside"; problem: string; keptAt: string };

/** What the file holds, without changing anything on disk (for `workbench doctor`). */
export function inspectJsonFile<T>(spec: JsonFileSpec<T>): JsonFileState<T> {
  let text: string;
  try {
    text = readFileSync(spec.path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { status: "missing" };
    return { status: "unreadable", problem: `it cannot be read (${code ?? String(err)})` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { status: "damaged", problem: `it is not valid JSON (${(err as Error).message})` };
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (spec.format !== undefined && typeof format === "number" && format > spec.format) {
    return { status: "newer", problem: `it was written by a newer workbench (format ${format}; this one reads format ${spec.format}); upgrade the workbench to use it` };
  }
  const parsed = spec.schema.safeParse(data);
  if (!parsed.success) return { status: "damaged", problem: `it does not have the expected shape (${describeIssues(parsed.error.issues)})` };
  return { status: "ok", value: parsed.data, text };
}

/** Reads and validates the file; a damaged one is moved aside (see the module comment) and reported. */
export function readJsonFile<T>(spec: JsonFileSpec<T>, now: () => Date = () => new Date()): JsonFileRead<T> {
  const state = inspectJsonFile(spec);
  if (state.status === "ok") tightenMode(spec.path);
  if (state.status !== "damaged") return state;
  return { status: "moved-aside", problem: state.problem, keptAt: moveAside(spec.path, now()) };
}

/** Writes `value` as pretty JSON, atomically and owner-only; returns the text written. */
export function writeJsonFile(path: string, value: unknown): string {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  writeFileAtomic(path, text);
  return text;
}

/** `<path>.unreadable-2025-01-31T10-00-00-000Z`, numbered if that name is taken; returns where it went. */
export function moveAside(path: string, at: Date): string {
  const stamp = at.toISOString().replace(/[:.]/g, "-");
  let target = `${path}.unreadable-${stamp}`;
  for (let n = 2; existsSync(target); n++) target = `${path}.unreadable-${stamp}-${n}`;
  renameSync(path, target);
  return target;
}

/**
 * Copies the file as it is now to `<path>.damaged-<hash of damage>`, unless
 * that copy exists: the same damage found by every later command makes no
 * second copy. `damage` names what is damaged (e.g. the raw bad entries), so
 * unrelated later edits of the file do not count as new damage.
 */
export function keepCopyOnce(path: string, damage: string): string {
  const target = `${path}.damaged-${createHash("sha256").update(damage).digest("hex").slice(0, 12)}`;
  if (!existsSync(target)) {
    copyFileSync(path, target);
    tightenMode(target);
  }
  return target;
}

/** The files an earlier recovery kept beside `path` (moved aside, or copied because of damage). */
export function keptCopiesOf(path: string, names: readonly string[]): string[] {
  const prefix = `${basename(path)}.`;
  return names.filter((name) => name.startsWith(prefix) && /^(unreadable|damaged|corrupt)-/.test(name.slice(prefix.length))).sort();
}

/** zod's issues as a person reads them: `apis.2.name: Invalid input: expected string`. At most three. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const described = issues.slice(0, 3).map((issue) => `${issue.path.length ? issue.path.join(".") : "the document"}: ${issue.message}`);
  if (issues.length > 3) described.push(`and ${issues.length - 3} more`);
  return described.join("; ");
}

/** Files from older versions (or copied in by hand) may be readable by others; ours are owner-only. */
function tightenMode(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    // Windows and some mounts ignore modes; the data directory itself is owner-only there.
  }
}
