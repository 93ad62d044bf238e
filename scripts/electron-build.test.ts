import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildElectron, buildHostBundles, electronUnavailable } from "./electron-build.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
// Inside the checkout, so the bundles' bare imports resolve to node_modules as in dist/electron.
mkdirSync(join(root, "dist"), { recursive: true });
const out = mkdtempSync(join(root, "dist", "test-bundle-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the Electron build", () => {
  it("bundles main (electron external) and a CommonJS preload with the contract inlined", async () => {
    const dir = join(out, "electron");
    await buildElectron(dir);
    const main = readFileSync(join(dir, "main.js"), "utf8");
    expect(main).toMatch(/from "electron"/);
    expect(main).toContain('new URL("./sandbox-worker.js", import.meta.url)');
    expect(main).toContain('new URL("./spec-reader.js", import.meta.url)');
    const preload = readFileSync(join(dir, "preload.cjs"), "utf8");
    expect(preload).toContain('require("electron")');
    expect(preload).toContain("exposeInMainWorld");
    expect(preload).toContain('"apis.list"');
    expect(preload).not.toMatch(/node:sqlite|node:fs/);
  });

  it("bundled host code runs: programs in the sandbox worker, searches through the spec reader, the demo API", async () => {
    const dir = join(out, "cli");
    await buildHostBundles(dir, { workbench: join(root, "bin", "workbench.js") });
    const dataDir = mkdtempSync(join(tmpdir(), "wb-bundle-data-"));
    const env = { ...process.env, WORKBENCH_DATA_DIR: dataDir, WORKBENCH_VAULT_KEY: Buffer.alloc(32, 5).toString("base64") };
    const run = spawnSync(process.execPath, [join(dir, "workbench.js"), "run", "--code", "-"], { input: "async () => (await apis.petstore.listPets({ limit: 1 })).status", encoding: "utf8", env, timeout: 30_000 });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "completed", result: 200 });
    const search = spawnSync(process.execPath, [join(dir, "workbench.js"), "search", "--code", "-"], { input: "async () => specs.petstore.operation('createPet').method", encoding: "utf8", env, timeout: 30_000 });
    expect(JSON.parse(search.stdout)).toMatchObject({ status: "completed", result: "post" });
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
