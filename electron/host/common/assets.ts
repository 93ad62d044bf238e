/**
 * Where the host finds the files it reads or starts at run time: the guest
 * sources, the demo spec, QuickJS's WebAssembly, the sandbox worker, the spec
 * reader, the renderer, the CLI, and the version. Every such lookup goes
 * through here, so the code has two layouts and one table between them:
 *
 * - from source (a checkout; Node strips the types), paths relative to the
 *   repository root;
 * - the bundle (`dist/electron`, built by scripts/electron-build.ts), paths
 *   relative to the bundle's folder. The build copies each file in ASSET_FILES
 *   to its bundle path and builds each of BUNDLE_ENTRIES there, reading this
 *   same table, so the two cannot drift.
 *
 * The bundle build defines WORKBENCH_BUNDLE (esbuild's `define`); from
 * source it is not defined at all. In a packaged app the bundle sits inside
 * app.asar: worker threads start from the unpacked copy (see asarUnpack in
 * electron-builder.yml), plain reads work either way.
 */
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

declare const WORKBENCH_BUNDLE: { version: string } | undefined;

interface Located {
  /** From the repository root; or, with `module`, a file of an installed package (wherever npm put it). */
  source: string;
  module?: true;
  /** From the bundle's folder. */
  bundle: string;
  /** Started as a worker thread (or imported by one): in a packaged app it runs from outside app.asar. */
  unpack?: true;
}

/** Files read at run time. */
export const ASSET_FILES = {
  guestBootstrap: { source: "electron/host/sandbox/guest/bootstrap.js", bundle: "assets/guest-bootstrap.js" },
  guestInspect: { source: "electron/host/sandbox/guest/inspect.js", bundle: "assets/guest-inspect.js" },
  demoSpec: { source: "specs/demo/petstore.yaml", bundle: "assets/petstore.yaml" },
  quickjsWasm: { source: "@jitl/quickjs-wasmfile-release-sync/wasm", module: true, bundle: "assets/quickjs.wasm" },
  /** The window's and the tray's icon (the installers take theirs from build/ too). */
  appIcon: { source: "build/icon.png", bundle: "assets/icon.png" },
} as const satisfies Record<string, Located>;

/** Modules started by URL (a worker thread, a module a worker imports). Each is its own bundle entry. */
export const BUNDLE_ENTRIES = {
  sandboxWorker: { source: "electron/host/sandbox/worker.ts", bundle: "sandbox-worker.js", unpack: true },
  specReader: { source: "electron/host/tools/spec-reader.ts", bundle: "spec-reader.js", unpack: true },
  /** The `workbench` command: what MCP clients that launch a process run. */
  cli: { source: "bin/workbench.js", bundle: "workbench.js" },
} as const satisfies Record<string, Located>;

export type AssetName = keyof typeof ASSET_FILES;
export type EntryName = keyof typeof BUNDLE_ENTRIES;

const bundle = typeof WORKBENCH_BUNDLE === "undefined" ? undefined : WORKBENCH_BUNDLE;

/** The folder paths in the table are relative to: the bundle's folder, or the repository root. */
const BASE = bundle ? new URL("./", import.meta.url) : new URL("../../../", import.meta.url);

function located(file: Located): URL {
  if (bundle) return new URL(file.bundle, BASE);
  return file.module ? pathToFileURL(createRequire(import.meta.url).resolve(file.source)) : new URL(file.source, BASE);
}

/** A file the host reads (the guest bootstrap, the demo spec, the WASM). */
export function assetPath(name: AssetName): string {
  return fileURLToPath(located(ASSET_FILES[name]));
}

/** A module started by URL. A worker's is the unpacked copy when the bundle is inside app.asar. */
export function entryUrl(name: EntryName): URL {
  const entry: Located = BUNDLE_ENTRIES[name];
  const url = located(entry);
  return bundle && entry.unpack ? unpacked(url) : url;
}

/** `…/app.asar/…` → `…/app.asar.unpacked/…`; any other URL unchanged. */
export function unpacked(url: URL): URL {
  return new URL(url.href.replace(/\/app\.asar\//, "/app.asar.unpacked/"));
}

/** dist/renderer: beside the bundle's folder, or under the repository root. */
export function rendererDir(): string {
  return fileURLToPath(new URL(bundle ? "../renderer/" : "dist/renderer/", BASE)).replace(/[\\/]$/, "");
}

/** The preload the window loads (only in the bundle; it is built, never run from source). */
export function preloadPath(): string {
  return fileURLToPath(new URL(bundle ? "preload.cjs" : "dist/electron/preload.cjs", BASE));
}

let version: string | undefined;

/** The workbench's version: fixed into the bundle at build time, else package.json's. */
export function workbenchVersion(): string {
  if (bundle) return bundle.version;
  version ??= (createRequire(import.meta.url)("../../../package.json") as { version: string }).version;
  return version;
}
