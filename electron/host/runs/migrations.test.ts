import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LATEST_SCHEMA_VERSION, migrate, MIGRATIONS, schemaVersion, type Migration } from "./migrations.ts";
import { tempDataDir } from "./test-support.ts";

let data: ReturnType<typeof tempDataDir>;
let db: DatabaseSync;
beforeEach(() => {
  data = tempDataDir();
  db = new DatabaseSync(join(data.dir, "m.sqlite"));
});
afterEach(() => {
  db.close();
  data.remove();
});

const names = (type: string) =>
  (db.prepare("SELECT name FROM sqlite_schema WHERE type = ? AND name NOT LIKE 'sqlite_%' ORDER BY name").all(type) as { name: string }[]).map((r) => r.name);

describe("migrate", () => {
  it("builds the whole schema from an empty file, once", () => {
    expect(migrate(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(names("table")).toEqual(expect.arrayContaining(["allow_rules", "call_text", "calls", "cancel_requests", "pending_decisions", "run_apis", "run_text", "runs"]));
    expect(names("index")).toEqual(expect.arrayContaining(["runs_by_created", "runs_by_status", "runs_by_source", "calls_by_api", "calls_in_flight"]));
    expect(migrate(db)).toEqual([]);
  });

  it("applies only the migrations above the file's version", () => {
    migrate(db, MIGRATIONS.slice(0, 1));
    expect(schemaVersion(db)).toBe(1);
    expect(names("table")).not.toContain("run_text");
    expect(migrate(db)).toEqual(MIGRATIONS.slice(1).map((m) => m.version));
  });

  it("rolls a failing migration back whole, version included", () => {
    const failing: Migration = {
      version: LATEST_SCHEMA_VERSION + 1,
      name: "half done",
      up: (d) => {
        d.exec("CREATE TABLE half (x)");
        throw new Error("disk on fire");
      },
    };
    migrate(db);
    expect(() => migrate(db, [...MIGRATIONS, failing])).toThrow("disk on fire");
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    expect(names("table")).not.toContain("half");
  });
});
