import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { inspectJsonFile, keepCopyOnce, keptCopiesOf, readJsonFile, writeJsonFile } from "./json-file.ts";

let dir: string;
let path: string;
const at = () => new Date(Date.UTC(2025, 2, 4, 5, 6, 7, 89));
const spec = () => ({ path, schema: z.object({ format: z.literal(1), items: z.array(z.string()) }), format: 1 });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wb-json-file-"));
  path = join(dir, "things.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the JSON-file store", () => {
  it("reads nothing from a missing file, and writes owner-only through a rename", () => {
    expect(readJsonFile(spec(), at)).toEqual({ status: "missing" });
    const text = writeJsonFile(path, { format: 1, items: ["a"] });
    expect(text).toBe('{\n  "format": 1,\n  "items": [\n    "a"\n  ]\n}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readJsonFile(spec(), at)).toEqual({ status: "ok", value: { format: 1, items: ["a"] }, text });
    expect(readdirSync(dir)).toEqual(["things.json"]); // no temp file left behind
  });

  it("tightens a readable file found readable by others", () => {
    writeFileSync(path, JSON.stringify({ format: 1, items: [] }), { mode: 0o644 });
    chmodSync(path, 0o644);
    expect(readJsonFile(spec(), at).status).toBe("ok");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("moves a file that is not JSON aside, once, keeping its bytes", () => {
    writeFileSync(path, "{ not json");
    expect(inspectJsonFile(spec())).toEqual({ status: "damaged", problem: expect.stringMatching(/^it is not valid JSON/) });
    expect(readdirSync(dir)).toEqual(["things.json"]); // inspecting changes nothing
    const read = readJsonFile(spec(), at);
    expect(read).toEqual({ status: "moved-aside", problem: expect.stringMatching(/^it is not valid JSON/), keptAt: join(dir, "things.json.unreadable-2025-03-04T05-06-07-089Z") });
    expect(readFileSync(join(dir, "things.json.unreadable-2025-03-04T05-06-07-089Z"), "utf8")).toBe("{ not json");
    expect(readJsonFile(spec(), at)).toEqual({ status: "missing" });
    writeFileSync(path, "[]");
    expect(readJsonFile(spec(), at)).toMatchObject({ status: "moved-aside", problem: expect.stringContaining("expected object"), keptAt: expect.stringMatching(/-089Z-2$/) });
    expect(keptCopiesOf(path, readdirSync(dir))).toEqual(["things.json.unreadable-2025-03-04T05-06-07-089Z", "things.json.unreadable-2025-03-04T05-06-07-089Z-2"]);
  });

  it("says where the shape is wrong", () => {
    writeFileSync(path, JSON.stringify({ format: 1, items: ["a", 2] }));
    expect(inspectJsonFile(spec())).toEqual({ status: "damaged", problem: expect.stringMatching(/^it does not have the expected shape \(items\.1: .*expected string/) });
  });

  it("leaves a file from a newer workbench exactly as it is", () => {
    writeFileSync(path, JSON.stringify({ format: 3, whatever: true }));
    expect(readJsonFile(spec(), at)).toEqual({ status: "newer", problem: expect.stringContaining("newer workbench (format 3; this one reads format 1)") });
    expect(readdirSync(dir)).toEqual(["things.json"]);
  });

  it("leaves a file it cannot read at all where it is", () => {
    mkdirSync(path);
    expect(readJsonFile(spec(), at)).toEqual({ status: "unreadable", problem: "it cannot be read (EISDIR)" });
    expect(readdirSync(dir)).toEqual(["things.json"]);
  });

  it("keeps one copy per distinct damage, however often it is found", () => {
    writeFileSync(path, '{"format":1,"items":["bad"]}');
    const first = keepCopyOnce(path, '"bad"');
    writeFileSync(path, '{"format":1,"items":["bad","more"]}'); // a later, unrelated change
    expect(keepCopyOnce(path, '"bad"')).toBe(first);
    expect(readFileSync(first, "utf8")).toBe('{"format":1,"items":["bad"]}');
    expect(statSync(first).mode & 0o777).toBe(0o600);
    expect(keepCopyOnce(path, '"worse"')).not.toBe(first);
    expect(keptCopiesOf(path, readdirSync(dir))).toHaveLength(2);
  });
});
