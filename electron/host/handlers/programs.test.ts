import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProgramsFile } from "./programs.ts";

let dir: string;
let logged: string[];
const file = () => new ProgramsFile(dir, (message) => logged.push(message));
const tab = (id: string) => ({ id, name: id, code: `async () => "${id}"`, policy: "read_only" as const });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wb-programs-"));
  logged = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("programs.json", () => {
  it("keeps the readable tabs of a file with one bad tab, and copies the file as found once", () => {
    file().save([tab("a"), tab("b")]);
    const doc = JSON.parse(readFileSync(join(dir, "programs.json"), "utf8"));
    doc.programs.splice(1, 0, { id: "", name: 3 });
    writeFileSync(join(dir, "programs.json"), JSON.stringify(doc));
    expect(file().list()).toEqual([tab("a"), tab("b")]);
    expect(file().list()).toEqual([tab("a"), tab("b")]);
    expect(logged).toEqual([expect.stringMatching(/^programs\.json: tab 2 \(id: .*\) could not be read and is left out; the file as found is kept at .*programs\.json\.damaged-/), expect.any(String)]);
    const copies = readdirSync(dir).filter((f) => f.startsWith("programs.json."));
    expect(copies).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, copies[0]!), "utf8")).programs[1]).toEqual({ id: "", name: 3 });
  });

  it("moves a file that is not JSON aside instead of saving over it", () => {
    writeFileSync(join(dir, "programs.json"), "{ half a fi");
    file().save([tab("new")]);
    expect(logged).toEqual([expect.stringMatching(/could not be read \(it is not valid JSON.*moved to .*programs\.json\.unreadable-.* before saving/)]);
    const kept = readdirSync(dir).filter((f) => f.startsWith("programs.json.unreadable-"));
    expect(readFileSync(join(dir, kept[0]!), "utf8")).toBe("{ half a fi");
    expect(file().list()).toEqual([tab("new")]);
  });

  it("never writes over a file from a newer workbench or one it cannot read", () => {
    writeFileSync(join(dir, "programs.json"), JSON.stringify({ format: 2, tabs: [] }));
    expect(file().list()).toEqual([]);
    expect(() => file().save([tab("x")])).toThrow(/newer workbench.*not saved/);
    expect(JSON.parse(readFileSync(join(dir, "programs.json"), "utf8"))).toEqual({ format: 2, tabs: [] });
    rmSync(join(dir, "programs.json"));
    mkdirSync(join(dir, "programs.json"));
    expect(() => file().save([tab("x")])).toThrow(/cannot be read \(EISDIR\)/);
  });
});
