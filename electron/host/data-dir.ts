/**
 * Where the workbench keeps its state: `--data-dir`, else `WORKBENCH_DATA_DIR`,
 * else the OS application-data folder Electron's `app.getPath("userData")`
 * points to for this app, so the CLI, `workbench serve` and the app share one.
 */
import { mkdirSync, chmodSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Electron derives userData from productName; keep this in step with package.json. */
export const APP_FOLDER_NAME = "Codemode Workbench";

export interface DataDirInputs {
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

export function resolveDataDir(inputs: DataDirInputs = {}): string {
  const env = inputs.env ?? process.env;
  if (inputs.flag) return resolve(inputs.flag);
  if (env.WORKBENCH_DATA_DIR) return resolve(env.WORKBENCH_DATA_DIR);
  return join(osAppDataDir(inputs.platform ?? process.platform, env, inputs.home ?? homedir()), APP_FOLDER_NAME);
}

function osAppDataDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
  if (platform === "darwin") return join(home, "Library", "Application Support");
  if (platform === "win32") return env.APPDATA ?? join(home, "AppData", "Roaming");
  return env.XDG_CONFIG_HOME ?? join(home, ".config");
}

/** Creates the directory (owner-only) if needed and returns it. */
export function ensureDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    // Not ours to fix (a shared mount, Windows); the files inside are still written owner-only.
  }
  return dir;
}
