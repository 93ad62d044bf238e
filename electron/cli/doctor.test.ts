import { DatabaseSync } from "node:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CodeRunStore } from "../host/runs/store.ts";
import { sampleRun, tempDataDir } from "../host/runs/test-support.ts";
import { damagedStoreError } from "./doctor.ts";

let data: ReturnType<typeof tempDataDir> | undefined;
afterEach(() => data?.remove());

describe("a run store found damaged in the middle of a command", () => {
  it("is told as where it is and what to do, not as SQLite's bare message", () => {
    data = tempDataDir();
    const { store } = CodeRunStore.open(data.dir);
    store.transaction(() => {
      for (let i = 0; i < 200; i++) store.createRun(sampleRun({ program: `// ${i} ${"x".repeat(400)}` }));
    });
    store.close();
    const path = join(data.dir, "runs.sqlite");
    const bytes = readFileSync(path);
    const page = Math.floor(bytes.indexOf("// 100 x") / 4096);
    bytes.fill(0xa5, 4096 * page, 4096 * (page + 1));
    writeFileSync(path, bytes);
    // What a command meets when damage appears after the store was opened and checked: SQLite's own error.
    const db = new DatabaseSync(path, { readOnly: true });
    let thrown: unknown;
    try {
      db.prepare("SELECT * FROM runs").all();
    } catch (err) {
      thrown = err;
    } finally {
      db.close();
    }
    expect(thrown).toMatchObject({ errcode: 11 });
    expect(damagedStoreError(thrown, path)?.message).toBe(
      `the run store at ${path} is damaged (SQLite: database disk image is malformed). Run \`workbench doctor\` to see what is damaged, and \`workbench doctor --repair\` to copy every readable run into a new store (the damaged file is kept beside it).`,
    );
    expect(damagedStoreError(new Error("ENOSPC"), path)).toBeUndefined();
  });
});
