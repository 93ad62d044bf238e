import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ASSET_FILES, BUNDLE_ENTRIES } from "../electron/host/common/assets.ts";
import { buildElectron, electronUnavailable } from "./electron-build.ts";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const out = mkdtempSync(join(tmpdir(), "wb-electron-build-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

// Running the bundle (relocated, under a stand-in Electron) is electron/stand-in/app.test.ts.
describe("the Electron build", () => {
  it("lays out the bundle from the asset table: entries, assets, and a package.json that makes .js ES modules", async () => {
    const dir = join(out, "electron");
    await buildElectron(dir);
    const files = readdirSync(dir);
    for (const entry of Object.values(BUNDLE_ENTRIES)) expect(files).toContain(entry.bundle);
    for (const asset of Object.values(ASSET_FILES)) expect(readFileSync(join(dir, asset.bundle)).length, asset.bundle).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))).toMatchObject({ type: "module" });
  });

  it("main imports electron and packages; workers are self-contained; the preload is CommonJS with the contract inlined", () => {
    const dir = join(out, "electron");
    const main = readFileSync(join(dir, "main.js"), "utf8");
    expect(main).toMatch(/from "electron"/);
    expect(main).toMatch(/from "@modelcontextprotocol\/sdk/);
    for (const worker of ["sandbox-worker.js", "spec-reader.js"]) {
      const text = readFileSync(join(dir, worker), "utf8");
      // Only Node built-ins: a worker runs unpacked from app.asar, where node_modules cannot be reached.
      const imports = [...text.matchAll(/^import .* from "([^"]+)";?$/gm)].map((m) => m[1]!);
      expect(imports.filter((s) => !s.startsWith("node:")), worker).toEqual([]);
      expect(text).not.toMatch(/require\("(?!node:)[^"]+"\)/);
    }
    const preload = readFileSync(join(dir, "preload.cjs"), "utf8");
    expect(preload).toContain('require("electron")');
    expect(preload).toContain("exposeInMainWorld");
    expect(preload).toContain('"apis.list"');
    expect(preload).not.toMatch(/node:sqlite|node:fs/);
  });

  it("names no path of the checkout it was built from, and runs no inlined module as a script", () => {
    const dir = join(out, "electron");
    for (const file of readdirSync(dir).filter((f) => /\.c?js$/.test(f))) {
      const text = readFileSync(join(dir, file), "utf8");
      expect(text, file).not.toContain(root);
      expect(text, file).not.toContain("import.meta.main");
    }
  });

  it("npm start knows when Electron cannot start here", () => {
    const pkg = join(out, "fake-electron");
    expect(electronUnavailable({}, "linux", pkg)).toMatch(/not installed/);
    mkdirSync(join(pkg, "dist"), { recursive: true });
    writeFileSync(join(pkg, "path.txt"), "electron");
    expect(electronUnavailable({}, "linux", pkg)).toMatch(/binary is missing/);
    writeFileSync(join(pkg, "dist", "electron"), "");
    expect(electronUnavailable({}, "linux", pkg)).toMatch(/no display/);
    expect(electronUnavailable({ DISPLAY: ":0" }, "linux", pkg)).toBeUndefined();
    expect(electronUnavailable({}, "darwin", pkg)).toBeUndefined();
  });
});
