/**
 * Opens `<dataDir>/runs.sqlite` owner-only, checks it and brings its schema up
 * to date. Every face (app, `serve`, `mcp`, each CLI command) opens it through
 * here with the same check, so they all agree on whether a store is damaged.
 *
 * A file that is not a run store we can read (garbage, truncated, corrupt,
 * someone else's database, or written by a newer workbench) is moved aside
 * with its -wal/-shm, never deleted, and a new store is created: losing the
 * history is bad, but refusing to start is worse, and the old file stays there
 * for a person (or a newer workbench) to recover. When the file is one of ours
 * with damaged pages, the rows that can still be read are first copied into
 * the new store (salvage.ts), so the damage costs only the runs it touched.
 * Any other failure (permissions, a locked file, a full disk) is thrown:
 * moving a healthy store aside because it was busy would be the worst outcome.
 */
import { DatabaseSync } from "node:sqlite";
import { chmodSync, closeSync, existsSync, openSync, renameSync } from "node:fs";
import { join } from "node:path";
import { ensureDataDir } from "../data-dir.ts";
import { LATEST_SCHEMA_VERSION, migrate, schemaVersion } from "./migrations.ts";
import { salvageRuns, type SalvageReport } from "./salvage.ts";

export const STORE_FILE = "runs.sqlite";
const COMPANION_SUFFIXES = ["-wal", "-shm", "-journal"];
const BUSY_TIMEOUT_MS = 5_000;

export interface StoreRecovery {
  /** Where the store is (the new one). */
  path: string;
  /** Where the unreadable file now is. */
  movedTo: string;
  /** Why it was moved, in words a person can act on. */
  reason: string;
  /** What was copied from the damaged file into the new store; absent when nothing could be (not a store of ours, or unreadable from the first page). */
  salvaged?: SalvageReport;
}

export interface OpenedDatabase {
  db: DatabaseSync;
  path: string;
  recovered?: StoreRecovery;
}

/** `damaged`: one of our stores with damaged pages, worth salvaging; other failures are not (garbage, someone else's file, a newer schema). */
type Attempt = { ok: true; db: DatabaseSync } | { ok: false; reason: string; damaged: boolean };

/**
 * How hard to look at an existing file before trusting it. "fast" opens it
 * and reads the schema version, which already catches garbage and truncation
 * (SQLite compares the page count in the header with the file, under its
 * locks); "full" adds quick_check of every page, about 2 ms per MiB (200 ms
 * for 10,000 runs). Every face uses "full" (a face that checked less would
 * read damaged pages as errors mid-command, where the others recover);
 * "fast" is for benchmarks and tests that reopen a known-good store;
 * "thorough" (`workbench doctor`) adds SQLite's integrity_check, which also
 * compares every index with its table and takes several times as long.
 */
export type IntegrityCheck = "fast" | "full" | "thorough";

export function openRunDatabase(dataDir: string, now: () => Date, integrity: IntegrityCheck = "full"): OpenedDatabase {
  ensureDataDir(dataDir);
  const path = join(dataDir, STORE_FILE);
  const first = attemptOpen(path, integrity);
  if (first.ok) return { db: first.db, path };

  const movedTo = moveAside(path, now());
  const second = attemptOpen(path, integrity);
  if (!second.ok) throw new Error(`A new run store at ${path} failed its check too: ${second.reason}`);
  const recovered: StoreRecovery = { path, movedTo, reason: first.reason };
  if (first.damaged) {
    try {
      recovered.salvaged = salvageRuns(movedTo, second.db);
    } catch {
      // Nothing readable (the first pages are gone): the new store stays empty, as before salvage existed.
    }
  }
  return { db: second.db, path, recovered };
}

export type RunStoreInspection =
  | { status: "missing" }
  /** `salvageable`: one of our stores with damaged pages (opening it salvages the readable runs); otherwise it would be moved aside whole. */
  | { status: "damaged"; reason: string; salvageable: boolean }
  | { status: "ok"; counts: { runs: number; calls: number; pending: number } };

/** The thorough check of `workbench doctor`, on a read-only connection: changes nothing. Throws, like opening, on what is not damage (permissions). */
export function inspectRunStore(dataDir: string): RunStoreInspection {
  const path = join(dataDir, STORE_FILE);
  if (!existsSync(path)) return { status: "missing" };
  const problem = inspectReadOnly(path, "thorough");
  if (problem) return { status: "damaged", reason: problem.reason, salvageable: problem.damaged };
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    if (schemaVersion(db) === 0) return { status: "ok", counts: { runs: 0, calls: 0, pending: 0 } };
    return { status: "ok", counts: { runs: count("SELECT count(*) AS n FROM runs"), calls: count("SELECT count(*) AS n FROM calls"), pending: count("SELECT count(*) AS n FROM pending_decisions") } };
  } catch (err) {
    return { status: "damaged", reason: corruptionReason(err, path), salvageable: true };
  } finally {
    db.close();
  }
}

/** The message the app, `serve` and the CLI show at start when a store was replaced: what was wrong, what was kept, what to do. */
export function describeRecovery(recovered: StoreRecovery): string {
  const what = `The run history at ${recovered.path} could not be opened: ${recovered.reason}.`;
  const kept = `The damaged file is kept as ${recovered.movedTo}`;
  const check = "Run `workbench doctor` to check the rest of the data directory.";
  const salvaged = recovered.salvaged;
  if (!salvaged || salvaged.runs.copied + salvaged.runs.lost === 0) return `${what} ${kept}; a new, empty run store was started. ${check}`;
  const runs = `${salvaged.runs.copied} of ${salvaged.runs.copied + salvaged.runs.lost} runs`;
  const lost = salvaged.runs.lost === 0 ? "" : ` ${salvaged.runs.lost} could not be read${salvaged.runs.lostIds.length ? ` (${salvaged.runs.lostIds.join(", ")}${salvaged.runs.lost > salvaged.runs.lostIds.length ? ", ..." : ""})` : ""}.`;
  const calls = `${salvaged.calls.copied} calls, ${salvaged.allowRules.copied} allow rules and ${salvaged.pendingDecisions.copied} pending decisions`;
  return `${what} ${runs} (with ${calls}) were recovered into a new run store.${lost} ${kept}. ${check}`;
}

function attemptOpen(path: string, integrity: IntegrityCheck): Attempt {
  createOwnerOnly(path);
  const problem = inspectReadOnly(path, integrity);
  if (problem) return { ok: false, ...problem };
  const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA foreign_keys = ON");
    // NORMAL is durable across process crashes in WAL mode (only a power cut may lose the last commits).
    db.exec("PRAGMA synchronous = NORMAL");
    migrate(db);
    restrictCompanions(path);
    return { ok: true, db };
  } catch (err) {
    db.close();
    return { ok: false, reason: corruptionReason(err, path), damaged: true };
  }
}

/**
 * Checks the file on a read-only connection, so that a file about to be moved
 * aside is left exactly as found: closing a writable connection would
 * checkpoint its WAL into the damaged file and delete the -wal.
 */
function inspectReadOnly(path: string, integrity: IntegrityCheck): { reason: string; damaged: boolean } | undefined {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const version = schemaVersion(db); // the first read: garbage fails here with "file is not a database"
    if (version > LATEST_SCHEMA_VERSION) {
      return { reason: `its schema version ${version} is newer than this workbench knows (${LATEST_SCHEMA_VERSION}); it was written by a newer workbench`, damaged: false };
    }
    if (version === 0 && tableCount(db) > 0) return { reason: "it is a SQLite database, but not a run store (unknown tables, no schema version)", damaged: false };
    if (integrity === "fast") return undefined;
    // "thorough" (workbench doctor) also checks that every index agrees with its table, which quick_check skips.
    const pragma = integrity === "thorough" ? "integrity_check" : "quick_check";
    const check = db.prepare(`PRAGMA ${pragma}(5)`).all() as Record<string, string>[];
    // One line per finding: SQLite's own lines start with "*** in database main ***" and run on with newlines.
    const findings = check.flatMap((r) => r[pragma]!.split("\n")).map((m) => m.trim()).filter((m) => m && m !== "ok" && !m.startsWith("***"));
    return findings.length > 0 ? { reason: `it failed SQLite's integrity check: ${findings.slice(0, 5).join("; ")}`, damaged: true } : undefined;
  } catch (err) {
    const reason = corruptionReason(err, path);
    return { reason, damaged: !reason.startsWith(NOT_A_DATABASE) };
  } finally {
    db?.close();
  }
}

function tableCount(db: DatabaseSync): number {
  return (db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number }).n;
}

const SQLITE_CORRUPT = 11;
const SQLITE_FORMAT = 24;
const SQLITE_NOTADB = 26;

const NOT_A_DATABASE = "it is not a SQLite database";

/** True for SQLite's "the file is damaged" errors (corrupt, malformed, not a database). */
export function isCorruptionError(err: unknown): boolean {
  const primary = ((err as { errcode?: number }).errcode ?? -1) & 0xff;
  return primary === SQLITE_CORRUPT || primary === SQLITE_FORMAT || primary === SQLITE_NOTADB;
}

/** Corruption becomes a reason to move the file aside; everything else is thrown as is. */
function corruptionReason(err: unknown, path: string): string {
  const sqlite = err as { errcode?: number; errstr?: string; message?: string };
  const primary = (sqlite.errcode ?? -1) & 0xff;
  if (primary === SQLITE_NOTADB) return `${NOT_A_DATABASE} (garbage or overwritten bytes)`;
  if (primary === SQLITE_CORRUPT || primary === SQLITE_FORMAT) return `it is damaged or truncated (SQLite: ${sqlite.errstr ?? sqlite.message})`;
  throw new Error(`Cannot open the run store at ${path}: ${sqlite.message ?? String(err)}`, { cause: err });
}

/**
 * The file is created 0600 before SQLite touches it; SQLite gives the -wal and
 * -shm files the database's mode, and they are tightened again after opening
 * in case they were left behind by an older, laxer version.
 */
function createOwnerOnly(path: string): void {
  closeSync(openSync(path, "a", 0o600));
  chmodOwnerOnly(path);
}

function restrictCompanions(path: string): void {
  for (const suffix of COMPANION_SUFFIXES) if (existsSync(path + suffix)) chmodOwnerOnly(path + suffix);
}

function chmodOwnerOnly(path: string): void {
  try {
    chmodSync(path, 0o600);
  } catch {
    // Windows and some mounts ignore modes; the data directory is owner-only there.
  }
}

/** `runs.sqlite.corrupt-2025-01-31T10-00-00-000Z`, numbered if that name is taken. */
function moveAside(path: string, at: Date): string {
  const stamp = at.toISOString().replace(/[:.]/g, "-");
  let target = `${path}.corrupt-${stamp}`;
  for (let n = 2; existsSync(target); n++) target = `${path}.corrupt-${stamp}-${n}`;
  renameSync(path, target);
  for (const suffix of COMPANION_SUFFIXES) if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  return target;
}
