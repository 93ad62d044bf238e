import { describe, expect, it } from "vitest";
import { resolveDataDir } from "./data-dir.ts";

describe("resolveDataDir", () => {
  it("prefers the flag, then WORKBENCH_DATA_DIR", () => {
    expect(resolveDataDir({ flag: "/tmp/a", env: { WORKBENCH_DATA_DIR: "/tmp/b" } })).toBe("/tmp/a");
    expect(resolveDataDir({ env: { WORKBENCH_DATA_DIR: "/tmp/b" } })).toBe("/tmp/b");
  });

  it("falls back to the folder Electron's userData uses on each OS", () => {
    expect(resolveDataDir({ env: {}, platform: "linux", home: "/home/u" })).toBe("/home/u/.config/Codemode Workbench");
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: "/x" }, platform: "linux", home: "/home/u" })).toBe("/x/Codemode Workbench");
    expect(resolveDataDir({ env: {}, platform: "darwin", home: "/Users/u" })).toBe("/Users/u/Library/Application Support/Codemode Workbench");
    expect(resolveDataDir({ env: { APPDATA: "C:\\R" }, platform: "win32", home: "C:\\U" })).toMatch(/Codemode Workbench$/);
  });
});
