import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ASSET_FILES, BUNDLE_ENTRIES, assetPath, entryUrl, rendererDir, unpacked, workbenchVersion, type AssetName, type EntryName } from "./assets.ts";

// The bundle's side of the table is exercised by running the bundle: electron/stand-in/app.test.ts.
describe("asset locations, from source", () => {
  it("finds every asset and entry of the table in the checkout", () => {
    for (const name of Object.keys(ASSET_FILES) as AssetName[]) expect(existsSync(assetPath(name)), name).toBe(true);
    for (const name of Object.keys(BUNDLE_ENTRIES) as EntryName[]) expect(existsSync(fileURLToPath(entryUrl(name))), name).toBe(true);
    expect(assetPath("quickjsWasm")).toMatch(/node_modules\/@jitl\/quickjs-wasmfile-release-sync\/.*\.wasm$/);
    expect(rendererDir()).toMatch(/dist\/renderer$/);
    expect(workbenchVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("points worker threads at the unpacked copy of a file inside app.asar", () => {
    expect(unpacked(new URL("file:///opt/Codemode%20Workbench/resources/app.asar/dist/electron/sandbox-worker.js")).href).toBe(
      "file:///opt/Codemode%20Workbench/resources/app.asar.unpacked/dist/electron/sandbox-worker.js",
    );
    expect(unpacked(new URL("file:///home/me/app/dist/electron/sandbox-worker.js")).href).toBe("file:///home/me/app/dist/electron/sandbox-worker.js");
  });
});
