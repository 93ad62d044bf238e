import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentLimitsSource, runLimitsOf } from "./agent-limits.ts";
import { readSettings, settingsPath, writeSettings } from "./settings-file.ts";

const fresh = () => mkdtempSync(join(tmpdir(), "wb-settings-"));

describe("settings.json", () => {
  it("keeps only what a person set, owner-only; a missing file means the defaults", () => {
    const dir = fresh();
    expect(readSettings(dir)).toEqual({ settings: { agentLimits: {} } });
    writeSettings(dir, { agentLimits: { memoryMb: 256 } });
    expect(statSync(settingsPath(dir)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(settingsPath(dir), "utf8"))).toEqual({ format: 1, agentLimits: { memoryMb: 256 } });
    expect(readSettings(dir)).toEqual({ settings: { agentLimits: { memoryMb: 256 } } });
  });

  it("ignores a value out of bounds (a hand edit) and says so; the rest still applies", () => {
    const dir = fresh();
    writeFileSync(settingsPath(dir), JSON.stringify({ format: 1, agentLimits: { memoryMb: 100000, wallMs: 5000, retries: 2 } }));
    const read = readSettings(dir);
    expect(read.settings.agentLimits).toEqual({ wallMs: 5000 });
    expect(read.problem).toBe("settings.json: memoryMb must be a whole number from 16 to 4,096 (MiB), not 100000; retries is not a setting; the default applies instead");
  });

  it("moves a file that is not JSON aside, never deleting it", () => {
    const dir = fresh();
    writeFileSync(settingsPath(dir), "{ not json");
    const read = readSettings(dir);
    expect(read.settings.agentLimits).toEqual({});
    expect(read.problem).toMatch(/settings\.json could not be read: it is not valid JSON.*It was moved to .*settings\.json\.unreadable-/);
    expect(existsSync(settingsPath(dir))).toBe(false);
    const aside = readdirSync(dir).find((f) => f.startsWith("settings.json.unreadable-"))!;
    expect(readFileSync(join(dir, aside), "utf8")).toBe("{ not json");
  });

  it("refuses to write a value out of bounds", () => {
    expect(() => writeSettings(fresh(), { agentLimits: { maxCalls: -1 } })).toThrow(/must be a whole number from 0 to 10,000/);
  });
});

describe("AgentLimitsSource", () => {
  it("applies defaults, then saved values, then this process's flags; reads the file at each use", () => {
    const dir = fresh();
    const logged: string[] = [];
    const source = new AgentLimitsSource(dir, { timeoutMs: 500 }, (m) => logged.push(m));
    expect(source.current()).toEqual({ memoryMb: 128, timeoutMs: 500, wallMs: 60_000, maxCalls: 100, maxOutputKb: 1024, maxResultTokens: 6000 });
    // Another process (the app) saves: the next use sees it.
    new AgentLimitsSource(dir).save({ memoryMb: 64, timeoutMs: 2000 });
    expect(source.view()).toMatchObject({ saved: { memoryMb: 64, timeoutMs: 2000 }, overrides: { timeoutMs: 500 }, effective: { memoryMb: 64, timeoutMs: 500 } });
    expect(runLimitsOf(source.current())).toEqual({ memoryBytes: 64 * 1024 * 1024, cpuMs: 500, wallMs: 60_000, maxCalls: 100, maxOutputBytes: 1024 * 1024 });
    // A problem with the file is logged once, not at every call.
    writeFileSync(settingsPath(dir), JSON.stringify({ format: 1, agentLimits: { memoryMb: 1 } }));
    source.current();
    source.current();
    expect(logged).toHaveLength(1);
  });
});
