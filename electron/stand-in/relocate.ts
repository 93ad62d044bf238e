/**
 * Lays the app out the way a package ships it, in a fresh temporary folder
 * with no source tree beside it: the bundle (dist/electron, built there), the
 * built renderer (copied from this checkout's dist/renderer), the app's
 * package.json, and only the production dependencies (the lockfile's
 * non-dev packages, copied). Electron itself is a dev dependency and is not
 * there: the stand-in takes its place.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildElectron } from "../../scripts/electron-build.ts";

export const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url));

export interface RelocatedApp {
  root: string;
  main: string;
  /** Production packages copied, for the record. */
  packages: string[];
  remove(): void;
}

/** The lockfile's production packages (`node_modules/...` paths, nested ones included). */
export function productionPackages(lockfile = join(CHECKOUT, "package-lock.json")): string[] {
  const lock = JSON.parse(readFileSync(lockfile, "utf8")) as { packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && !entry.dev && !entry.devOptional)
    .map(([path]) => path)
    .filter((path) => existsSync(join(CHECKOUT, path)));
}

export async function relocateApp(): Promise<RelocatedApp> {
  const renderer = join(CHECKOUT, "dist", "renderer");
  if (!existsSync(join(renderer, "index.html"))) throw new Error(`${renderer} is not built: run npm run build first`);
  const root = mkdtempSync(join(tmpdir(), "wb-relocated-app-"));
  await buildElectron(join(root, "dist", "electron"));
  cpSync(renderer, join(root, "dist", "renderer"), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(CHECKOUT, "package.json"), "utf8")) as Record<string, unknown>;
  const shipped = Object.fromEntries(["name", "productName", "version", "description", "license", "type", "main", "dependencies"].map((key) => [key, pkg[key]]));
  writeFileSync(join(root, "package.json"), `${JSON.stringify(shipped, null, 2)}\n`);
  const packages = productionPackages();
  for (const path of packages) {
    const target = join(root, path);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    // Command links (.bin) are for npm scripts, not the app.
    cpSync(join(CHECKOUT, path), target, { recursive: true, filter: (source) => !/[\\/]\.bin$/.test(source) });
  }
  return { root, main: join(root, "dist", "electron", "main.js"), packages, remove: () => rmSync(root, { recursive: true, force: true }) };
}
