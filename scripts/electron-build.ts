// `node scripts/electron-build.ts` builds what Electron loads: dist/electron/main.js (the main process, ESM),
// dist/electron/preload.cjs (the sandboxed preload, CommonJS, everything it
// needs inlined), and the two files the host starts by URL: the sandbox
// worker and the spec reader. Our TypeScript is bundled; node_modules stay
// external and load from the checkout, as with `workbench serve`.
//
// Host modules find files beside their source with `new URL(..., import.meta.url)`
// (the guest bootstrap, the demo spec, package.json). In a bundle that URL would
// point at dist/, so each module's `import.meta.url` becomes its source file's URL,
// except where it names the worker or the reader, which are built next to main.js.
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
export const ELECTRON_OUT = join(root, "dist", "electron");

const BUNDLE_URL = "__workbench_bundle_url__";
const BUILT_BESIDE: [RegExp, string][] = [
  [/new URL\("\.\/worker\.ts", import\.meta\.url\)/g, `new URL("./sandbox-worker.js", ${BUNDLE_URL})`],
  [/new URL\("\.\/spec-reader\.ts", import\.meta\.url\)/g, `new URL("./spec-reader.js", ${BUNDLE_URL})`],
];

/** Keeps each module's import.meta.url pointing at its source, but the worker and reader at the bundle's folder. */
export const sourceUrlPlugin = (keepBundleUrl: string[] = []): Plugin => ({
  name: "workbench-source-url",
  setup(build) {
    build.onLoad({ filter: /\.(ts|js)$/ }, async (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      let text = await readFile(args.path, "utf8");
      if (!text.includes("import.meta.url") || keepBundleUrl.includes(args.path)) return { contents: text, loader: args.path.endsWith(".ts") ? "ts" : "js" };
      for (const [pattern, replacement] of BUILT_BESIDE) text = text.replace(pattern, replacement);
      text = text.replace(/import\.meta\.url/g, JSON.stringify(pathToFileURL(args.path).href)).replaceAll(BUNDLE_URL, "import.meta.url");
      return { contents: text, loader: args.path.endsWith(".ts") ? "ts" : "js" };
    });
  },
});

/** Builds the host-side bundles of `entries` ({outName: sourcePath}) plus the worker and reader into `outDir`. */
export async function buildHostBundles(outDir: string, entries: Record<string, string>, { keepBundleUrl = [] as string[] } = {}): Promise<void> {
  const { build } = await import("esbuild");
  const entryPoints = {
    ...entries,
    "sandbox-worker": join(root, "electron/host/sandbox/worker.ts"),
    "spec-reader": join(root, "electron/host/tools/spec-reader.ts"),
  };
  await build({
    entryPoints,
    outdir: outDir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    external: ["electron"],
    plugins: [sourceUrlPlugin(keepBundleUrl)],
    logLevel: "warning",
    sourcemap: "linked",
  });
}

export async function buildElectron(outDir = ELECTRON_OUT): Promise<void> {
  const { build } = await import("esbuild");
  const main = join(root, "electron/main.ts");
  await buildHostBundles(outDir, { main }, { keepBundleUrl: [main] });
  await build({
    entryPoints: { preload: join(root, "electron/preload.ts") },
    outdir: outDir,
    outExtension: { ".js": ".cjs" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    external: ["electron"],
    logLevel: "warning",
  });
}

/** True when dist/electron is older than any TypeScript it is built from. */
export async function electronBuildIsStale(outDir = ELECTRON_OUT): Promise<boolean> {
  let built: number;
  try {
    built = Math.min((await stat(join(outDir, "main.js"))).mtimeMs, (await stat(join(outDir, "preload.cjs"))).mtimeMs);
  } catch {
    return true;
  }
  for (const dir of ["electron", "shared"]) {
    for (const entry of await readdir(join(root, dir), { recursive: true })) {
      if (!/\.(ts|js)$/.test(entry) || entry.endsWith(".test.ts")) continue;
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
  await buildElectron();
  process.stdout.write(`built ${ELECTRON_OUT}\n`);
}
