import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DatabaseSync } from "node:sqlite";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CodeRunStore } from "./store.ts";
import { LATEST_SCHEMA_VERSION } from "./migrations.ts";
import { describeRecovery } from "./open-database.ts";
import { sampleCall, sampleRun, tempDataDir } from "./test-support.ts";

let data: ReturnType<typeof tempDataDir>;
const at = new Date(Date.UTC(2025, 2, 4, 5, 6, 7, 89));
const now = () => at;
const storePath = () => join(data.dir, "runs.sqlite");
const asideName = "runs.sqlite.corrupt-2025-03-04T05-06-07-089Z";

beforeEach(() => {
  data = tempDataDir();
});
afterEach(() => data.remove());

/** A real store with a few hundred runs, closed, so that its file spans many pages. */
function writeHealthyStore(): void {
  const { store } = CodeRunStore.open(data.dir, { now });
  store.transaction(() => {
    for (let i = 0; i < 300; i++) {
      const run = store.createRun(sampleRun({ program: `// run ${i}\n${"x".repeat(500)}` }));
      store.recordCall(sampleCall(run.id, 0, { status: 200 }));
    }
  });
  store.close();
}

/** Opens again; expects the old file moved aside intact and a working, empty store. */
function expectMovedAside(originalBytes: Buffer, reason: RegExp): void {
  const { store, recovered } = CodeRunStore.open(data.dir, { now });
  try {
    expect(recovered).toEqual({ path: storePath(), movedTo: join(data.dir, asideName), reason: expect.stringMatching(reason) });
    expect(describeRecovery(recovered!)).toMatch(new RegExp(`^The run history at ${storePath()} could not be opened: .*kept as .*${asideName}; a new, empty run store was started\\. Run \`workbench doctor\``));
    expect(readFileSync(recovered!.movedTo).equals(originalBytes)).toBe(true);
    expect(store.listRuns({})).toEqual([]);
    const run = store.createRun(sampleRun());
    expect(store.getRun(run.id)!.status).toBe("running");
  } finally {
    store.close();
  }
}

describe("opening the run store", () => {
  it("creates the file and its WAL companions owner-only (0600)", () => {
    const { store, recovered } = CodeRunStore.open(data.dir, { now });
    store.createRun(sampleRun()); // the -wal and -shm exist while the store is open
    for (const name of ["runs.sqlite", "runs.sqlite-wal", "runs.sqlite-shm"]) {
      expect(statSync(join(data.dir, name)).mode & 0o777, name).toBe(0o600);
    }
    expect(recovered).toBeUndefined();
    store.close();
  });

  it("tightens an existing store file that was readable by others", () => {
    writeHealthyStore();
    chmodSync(storePath(), 0o644);
    const { store } = CodeRunStore.open(data.dir, { now });
    expect(statSync(storePath()).mode & 0o777).toBe(0o600);
    expect(store.listRuns({ limit: 500 })).toHaveLength(300);
    store.close();
  });

  it("opens in WAL mode with foreign keys on, at the latest schema version", () => {
    const { store } = CodeRunStore.open(data.dir, { now });
    store.close();
    const db = new DatabaseSync(storePath());
    expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.prepare("PRAGMA user_version").get()).toEqual({ user_version: LATEST_SCHEMA_VERSION });
    db.close();
  });

  it("moves a file of garbage bytes aside and starts a new store", () => {
    const garbage = Buffer.alloc(64 * 1024, "not a database ");
    writeFileSync(storePath(), garbage);
    expectMovedAside(garbage, /not a SQLite database/);
  });

  it("moves a truncated store aside, with its -wal and -shm, keeping the runs still in it", () => {
    writeHealthyStore();
    truncateSync(storePath(), Math.floor(statSync(storePath()).size / 2));
    writeFileSync(`${storePath()}-wal`, "stale wal");
    const truncated = readFileSync(storePath());
    const { store, recovered } = CodeRunStore.open(data.dir, { now });
    try {
      expect(recovered).toMatchObject({ movedTo: join(data.dir, asideName), reason: expect.stringMatching(/damaged or truncated \(SQLite: database disk image is malformed\)/) });
      expect(readFileSync(recovered!.movedTo).equals(truncated)).toBe(true);
      expect(readFileSync(join(data.dir, `${asideName}-wal`), "utf8")).toBe("stale wal");
      const copied = recovered!.salvaged!.runs.copied;
      expect(copied).toBeGreaterThan(0);
      expect(store.listRuns({ limit: 500 })).toHaveLength(copied);
    } finally {
      store.close();
    }
  });

  it("finds a truncated store even with the fast check (SQLite compares the header's page count with the file)", () => {
    writeHealthyStore();
    truncateSync(storePath(), statSync(storePath()).size - 4096);
    const { store, recovered } = CodeRunStore.open(data.dir, { now, integrityCheck: "fast" });
    store.close();
    expect(recovered?.reason).toMatch(/truncated/);
  });

  it("moves aside a store written by a newer workbench, and says so", () => {
    writeHealthyStore();
    const db = new DatabaseSync(storePath());
    db.exec(`PRAGMA user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    db.close();
    const newer = readFileSync(storePath());
    expectMovedAside(newer, new RegExp(`schema version ${LATEST_SCHEMA_VERSION + 1} is newer than this workbench knows`));
  });

  it("moves aside a SQLite file that is not a run store", () => {
    const db = new DatabaseSync(storePath());
    db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    db.close();
    expectMovedAside(readFileSync(storePath()), /not a run store/);
  });

  it("never overwrites an earlier moved-aside file", () => {
    writeFileSync(storePath(), "garbage one");
    CodeRunStore.open(data.dir, { now }).store.close();
    writeFileSync(storePath(), "garbage two");
    const second = CodeRunStore.open(data.dir, { now });
    second.store.close();
    expect(second.recovered!.movedTo).toBe(join(data.dir, `${asideName}-2`));
    expect(readFileSync(join(data.dir, asideName), "utf8")).toBe("garbage one");
    expect(readFileSync(second.recovered!.movedTo, "utf8")).toBe("garbage two");
  });

  it("throws, and moves nothing, when the failure is not corruption", () => {
    mkdirSync(storePath()); // a directory where the file should be
    expect(() => CodeRunStore.open(data.dir, { now })).toThrow(/runs\.sqlite/);
    expect(readdirSync(data.dir)).toEqual(["runs.sqlite"]);
    expect(existsSync(join(data.dir, asideName))).toBe(false);
  });
});
