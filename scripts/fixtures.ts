/**
 * Big real fixtures come from the npm registry, never from git. GitHub's REST
 * spec ships in @octokit/openapi (a ~29 MB tarball that unpacks to hundreds of
 * MB), so we pack the tarball into a cache folder once and extract only the one
 * file we need. Tests and the bench share the cache.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const OCTOKIT_OPENAPI_VERSION = "23.0.2";

export function fixturesDir(): string {
  return process.env.WORKBENCH_FIXTURES_DIR ?? join(homedir(), ".cache", "codemode-workbench", "fixtures");
}

/** Path to GitHub's REST API spec (api.github.com.json, ~13 MB, 1,223 operations). */
export function githubSpecPath(): string {
  const dir = join(fixturesDir(), `octokit-openapi-${OCTOKIT_OPENAPI_VERSION}`);
  const target = join(dir, "api.github.com.json");
  if (existsSync(target)) return target;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, "tmp-"));
  try {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const tarball = execFileSync(npm, ["pack", `@octokit/openapi@${OCTOKIT_OPENAPI_VERSION}`, "--silent", "--pack-destination", work], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim().split("\n").pop()!;
    execFileSync("tar", ["xzf", join(work, tarball), "-C", work, "package/generated/api.github.com.json"]);
    // Rename is atomic: a concurrent test either sees the whole file or none.
    renameSync(join(work, "package/generated/api.github.com.json"), target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return target;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${githubSpecPath()}\n`);
}
