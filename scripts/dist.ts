// `npm run dist [-- --linux | --mac | --win ...]`: the installable app, with
// electron-builder (electron-builder.yml): AppImage and deb on Linux, dmg on
// macOS, an NSIS installer on Windows, in release/.
//
// electron-builder downloads Electron itself and its packaging tools from
// GitHub. Where that cannot be reached (these CI machines), this says so in
// one line and exits 1 before building anything; CI does not run it.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Where @electron/get keeps downloaded Electron zips. */
export function electronCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (env.electron_config_cache) return env.electron_config_cache;
  if (platform === "darwin") return join(home, "Library", "Caches", "electron");
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "electron", "Cache");
  return join(env.XDG_CACHE_HOME ?? join(home, ".cache"), "electron");
}

/** Why the downloads packaging needs cannot be had, or undefined when they can (or Electron's zip is already cached). */
export async function packagingDownloadsUnreachable(
  version: string,
  options: { env?: NodeJS.ProcessEnv; fetch?: typeof fetch; cacheDir?: string; timeoutMs?: number } = {},
): Promise<string | undefined> {
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir ?? electronCacheDir(env);
  const cached = existsSync(cacheDir) && readdirSync(cacheDir, { recursive: true }).some((f) => String(f).includes(`electron-v${version}-`));
  const mirror = env.ELECTRON_MIRROR ?? "https://github.com/electron/electron/releases/download/";
  const builderMirror = env.ELECTRON_BUILDER_BINARIES_MIRROR ?? "https://github.com/electron-userland/electron-builder-binaries/releases/download/";
  const urls = [...(cached ? [] : [`${mirror.replace(/\/?$/, "/")}v${version}/SHASUMS256.txt`]), builderMirror];
  for (const url of urls) {
    try {
      // Any HTTP answer (a redirect to the file store included) means the host is reachable.
      await (options.fetch ?? fetch)(url, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(options.timeoutMs ?? 8_000) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      return `${new URL(url).host} is not reachable (${cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))})`;
    }
  }
  return undefined;
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (import.meta.main) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  const version = pkg.devDependencies.electron!;
  const why = await packagingDownloadsUnreachable(version);
  if (why) {
    process.stderr.write(`npm run dist: cannot package here: ${why}; electron-builder downloads Electron ${version} and its packaging tools from there (ELECTRON_MIRROR and ELECTRON_BUILDER_BINARIES_MIRROR name mirrors)\n`);
    process.exit(1);
  }
  run(process.execPath, [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"]);
  run(process.execPath, [join(root, "scripts/electron-build.ts")]);
  run(process.execPath, [join(root, "node_modules/electron-builder/cli.js"), "--config", "electron-builder.yml", "--publish", "never", ...process.argv.slice(2)]);
}
