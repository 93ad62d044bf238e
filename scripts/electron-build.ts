// `node scripts/electron-build.ts [outDir]` builds the app's bundle, dist/electron/,
// which needs nothing outside itself but dist/renderer beside it and the
// production node_modules above it:
//
//   main.js            the main process (ESM; packages and `electron` stay imports)
//   preload.cjs        the sandboxed preload (CommonJS, everything inlined)
//   sandbox-worker.js  the sandbox's worker thread, self-contained (it runs
//   spec-reader.js     unpacked from app.asar, where node_modules cannot be reached)
//   workbench.js       the CLI, for MCP clients that launch a process
//   assets/            files the host reads: guest sources, demo spec, QuickJS's WASM
//   package.json       {"type": "module"}, so the .js files load as ES modules anywhere
//
// What goes where comes from electron/host/common/assets.ts, the same table the host
// uses to find these files at run time; the bundles get WORKBENCH_BUNDLE
// defined so that table answers with bundle paths.
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BuildOptions } from "esbuild";
import { ASSET_FILES, BUNDLE_ENTRIES, assetPath, type AssetName, type EntryName } from "../electron/host/common/assets.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
export const ELECTRON_OUT = join(root, "dist", "electron");

/** Worker bundles are ES modules that inline CommonJS packages; those need `require` for Node built-ins. */
const REQUIRE_SHIM = 'import { createRequire as __workbenchCreateRequire } from "node:module"; const require = __workbenchCreateRequire(import.meta.url);';

export async function buildElectron(outDir = ELECTRON_OUT): Promise<void> {
  const { build } = await import("esbuild");
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  const common: BuildOptions = {
    outdir: outDir,
    bundle: true,
    platform: "node",
    target: "node22",
    // Inlined modules share the bundle's import.meta: none of them is the script Node was asked to run.
    define: { WORKBENCH_BUNDLE: JSON.stringify({ version }), "import.meta.main": "false" },
    logLevel: "warning",
    sourcemap: "linked",
  };
  const source = (name: EntryName) => join(root, BUNDLE_ENTRIES[name].source);
  const outName = (name: EntryName) => BUNDLE_ENTRIES[name].bundle.replace(/\.js$/, "");

  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await Promise.all([
    build({ ...common, format: "esm", packages: "external", external: ["electron"], entryPoints: { main: join(root, "electron/main.ts"), [outName("cli")]: source("cli") } }),
    build({ ...common, format: "esm", banner: { js: REQUIRE_SHIM }, entryPoints: { [outName("sandboxWorker")]: source("sandboxWorker"), [outName("specReader")]: source("specReader") } }),
    build({ ...common, format: "cjs", external: ["electron"], outExtension: { ".js": ".cjs" }, entryPoints: { preload: join(root, "electron/preload.ts") } }),
  ]);
  for (const name of Object.keys(ASSET_FILES) as AssetName[]) {
    const target = join(outDir, ASSET_FILES[name].bundle);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(assetPath(name), target);
  }
  await writeFile(join(outDir, "package.json"), `${JSON.stringify({ type: "module", private: true }, null, 2)}\n`);
}

/** True when dist/electron is older than anything it is built from. */
export async function electronBuildIsStale(outDir = ELECTRON_OUT): Promise<boolean> {
  let built: number;
  try {
    built = Math.min((await stat(join(outDir, "main.js"))).mtimeMs, (await stat(join(outDir, "preload.cjs"))).mtimeMs);
  } catch {
    return true;
  }
  if ((await stat(join(root, "package.json"))).mtimeMs > built) return true;
  for (const dir of ["electron", "shared", "specs/demo", "bin"]) {
    for (const entry of await readdir(join(root, dir), { recursive: true })) {
      if (!/\.(ts|js|yaml)$/.test(entry) || entry.endsWith(".test.ts")) continue;
      if ((await stat(join(root, dir, entry))).mtimeMs > built) return true;
    }
  }
  return false;
}

/** The Electron binary's path, without the npm package's download-on-require (there may be no network). */
export function electronBinary(env: NodeJS.ProcessEnv = process.env, pkg = join(root, "node_modules", "electron")): { ok: true; binary: string } | { ok: false; why: string } {
  const pathFile = join(pkg, "path.txt");
  if (!existsSync(pathFile)) return { ok: false, why: "the Electron binary is not installed (node_modules/electron has no path.txt)" };
  const relative = readFileSync(pathFile, "utf8").trim();
  const binary = env.ELECTRON_OVERRIDE_DIST_PATH ? join(env.ELECTRON_OVERRIDE_DIST_PATH, relative) : join(pkg, "dist", relative);
  if (!existsSync(binary)) return { ok: false, why: `the Electron binary is missing (${binary})` };
  return { ok: true, binary };
}

/** Why Electron cannot start on this machine, or undefined when it may. */
export function electronUnavailable(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, pkg?: string): string | undefined {
  const found = electronBinary(env, pkg);
  if (!found.ok) return found.why;
  if (platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY) return "there is no display (DISPLAY and WAYLAND_DISPLAY are unset)";
  return undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const out = process.argv[2] ? resolve(process.argv[2]) : ELECTRON_OUT;
  await buildElectron(out);
  process.stdout.write(`built ${out}\n`);
}
