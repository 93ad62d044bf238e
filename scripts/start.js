// `npm start`: the Electron app when Electron can start here; otherwise (no
// Electron binary, no display, or it fails at once) `workbench serve --open`
// with a one-line note why. Builds what is missing first: the renderer
// (vite) and the Electron bundles (esbuild), each only when stale.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`npm start needs Node.js 22.18 or newer (this is ${process.version}). See DEVELOPERS.md.\n`);
  process.exit(1);
}
// Our TypeScript runs from source (Node 22.18+ strips types); its experimental warning says nothing new.
const quiet = /Type Stripping is an experimental feature|stripping types is an experimental/i;
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name !== "ExperimentalWarning" || !quiet.test(warning.message)) process.stderr.write(`${warning.name}: ${warning.message}\n`);
});
const { buildElectron, electronBinary, electronBuildIsStale, electronUnavailable } = await import("./electron-build.ts");

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
/** Electron exiting this soon with a failure counts as "cannot start here". */
const EARLY_FAILURE_MS = 5_000;

function ensureRenderer() {
  if (existsSync(join(root, "dist", "renderer", "index.html"))) return;
  process.stderr.write("npm start: building the UI (vite)...\n");
  const vite = spawnSync(process.execPath, [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"], { cwd: root, stdio: "inherit" });
  if (vite.status !== 0) process.stderr.write("npm start: the UI did not build; the page will say so\n");
}

let fellBack = false;

function serveInstead(why) {
  if (fellBack) return;
  fellBack = true;
  process.stderr.write(`npm start: the Electron app cannot start here (${why}); running workbench serve --open instead\n`);
  const child = spawn(process.execPath, [join(root, "bin", "workbench.js"), "serve", "--open", ...args], { cwd: root, stdio: "inherit" });
  forwardSignals(child);
  child.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

/** Ctrl-C and a closed terminal reach the whole process group already; a `kill` of this process must reach the child too. */
function forwardSignals(child) {
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => child.kill("SIGTERM"));
}

async function main() {
  ensureRenderer();
  const why = electronUnavailable();
  if (why) return serveInstead(why);
  if (await electronBuildIsStale()) {
    process.stderr.write("npm start: building the Electron main process and preload (esbuild)...\n");
    await buildElectron();
  }
  const { binary } = electronBinary();
  const started = Date.now();
  const child = spawn(binary, [root, ...args], { cwd: root, stdio: "inherit" });
  forwardSignals(child);
  child.once("error", (err) => serveInstead(`it failed to launch: ${err.message}`));
  child.once("exit", (code, signal) => {
    if (code !== 0 && Date.now() - started < EARLY_FAILURE_MS) return serveInstead(`it exited with ${signal ?? `code ${code}`} while starting`);
    process.exit(code ?? 0);
  });
}

await main();
