/**
 * Opens `<dataDir>/runs.sqlite` owner-only, checks it and brings its schema up
 * to date. A file that is not a run store we can read (garbage, truncated,
 * corrupt, someone else's database, or written by a newer workbench) is moved
 * aside with its -wal/-shm, never deleted, and a new store is created: losing
 * the history is bad, but refusing to start is worse, and the old file stays
 * there for a person (or a newer workbench) to recover. Any other failure
 * (permissions, a locked file, a full disk) is thrown: moving a healthy store
 * aside because it was busy would be the worst outcome of all.
 */
import { DatabaseSync } from "node:sqlite";
import { chmodSync, closeSync, existsSync, openSync, renameSync } from "node:fs";
import { join } from "node:path";
import { ensureDataDir } from "../data-dir.ts";
import { LATEST_SCHEMA_VERSION, migrate, schemaVersion } from "./migrations.ts";

export const STORE_FILE = "runs.sqlite";
const COMPANION_SUFFIXES = ["-wal", "-shm", "-journal"];
const BUSY_TIMEOUT_MS = 5_000;

export interface StoreRecovery {
  /** Where the unreadable file now is. */
  movedTo: string;
  /** Why it was moved, in words a person can act on. */
  reason: string;
}

export interface OpenedDatabase {
  db: DatabaseSync;
  path: string;
  recovered?: StoreRecovery;
}

type Attempt = { ok: true; db: DatabaseSync } | { ok: false; reason: string };

/**
 * How hard to look at an existing file before trusting it. "fast" opens it
 * and reads the schema version, which already catches garbage and truncation
 * (SQLite compares the page count in the header with the file, under its
 * locks); "full" adds quick_check of every page, about 2 ms per MiB (200 ms
 * for 10,000 runs): right once at app start, slow for every CLI command.
 */
export type IntegrityCheck = "fast" | "full";

export function openRunDatabase(dataDir: string, now: () => Date, integrity: IntegrityCheck = "full"): OpenedDatabase {
  ensureDataDir(dataDir);
  const path = join(dataDir, STORE_FILE);
  const first = attemptOpen(path, integrity);
  if (first.ok) return { db: first.db, path };

  const movedTo = moveAside(path, now());
  const second = attemptOpen(path, integrity);
  if (!second.ok) throw new Error(`A new run store at ${path} failed its check too: ${second.reason}`);
  return { db: second.db, path, recovered: { movedTo, reason: first.reason } };
}

/** The message the app, `serve` and the CLI show at start when a store was replaced. */
export function describeRecovery(recovered: StoreRecovery): string {
  return `The run history could not be opened: ${recovered.reason}. The file was kept as ${recovered.movedTo} and a new, empty run store was started.`;
}

function attemptOpen(path: string, integrity: IntegrityCheck): Attempt {
  createOwnerOnly(path);
  const problem = inspectReadOnly(path, integrity);
  if (problem) return { ok: false, reason: problem };
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
    return { ok: false, reason: corruptionReason(err, path) };
  }
}

/**
 * Checks the file on a read-only connection, so that a file about to be moved
 * aside is left exactly as found: closing a writable connection would
 * checkpoint its WAL into the damaged file and delete the -wal.
 */
function inspectReadOnly(path: string, integrity: IntegrityCheck): string | undefined {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const version = schemaVersion(db); // the first read: garbage fails here with "file is not a database"
    if (version > LATEST_SCHEMA_VERSION) {
      return `its schema version ${version} is newer than this workbench knows (${LATEST_SCHEMA_VERSION}); it was written by a newer workbench`;
    }
    if (version === 0 && tableCount(db) > 0) return "it is a SQLite database, but not a run store (unknown tables, no schema version)";
    if (integrity === "fast") return undefined;
    const check = db.prepare("PRAGMA quick_check(5)").all() as { quick_check: string }[];
    const findings = check.map((r) => r.quick_check).filter((m) => m !== "ok");
    return findings.length > 0 ? `it failed SQLite's integrity check: ${findings.join("; ")}` : undefined;
  } catch (err) {
    return corruptionReason(err, path);
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

/** Corruption becomes a reason to move the file aside; everything else is thrown as is. */
function corruptionReason(err: unknown, path: string): string {
  const sqlite = err as { errcode?: number; errstr?: string; message?: string };
  const primary = (sqlite.errcode ?? -1) & 0xff;
  if (primary === SQLITE_NOTADB) return "it is not a SQLite database (garbage or overwritten bytes)";
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
