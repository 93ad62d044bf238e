import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BUNDLE_ENTRIES } from "../electron/host/common/assets.ts";
import { LINK_SCHEME } from "../electron/shell/open-target.ts";
import { packagingDownloadsUnreachable } from "./dist.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const config = parse(readFileSync(join(root, "electron-builder.yml"), "utf8")) as Record<string, unknown> & { asarUnpack: string[]; files: string[] };
const scratch = mkdtempSync(join(tmpdir(), "wb-dist-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the package (electron-builder.yml)", () => {
  it("is a configuration electron-builder accepts", async () => {
    const require = createRequire(join(root, "package.json"));
    const { validateConfiguration } = require("app-builder-lib/out/util/config/config.js") as { validateConfiguration(c: unknown, logger: unknown): Promise<void> };
    const { DebugLogger } = require("builder-util") as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    await expect(validateConfiguration({ ...config, asarUnpak: [] }, new DebugLogger(false))).rejects.toThrow(/asarUnpak/);
  });

  it("ships the bundle and the renderer, unpacks what worker threads load, and registers the link scheme", () => {
    expect(config.files).toEqual(expect.arrayContaining(["package.json", "dist/electron/**", "dist/renderer/**"]));
    for (const entry of Object.values(BUNDLE_ENTRIES)) {
      if ("unpack" in entry) expect(config.asarUnpack, entry.bundle).toContain(`dist/electron/${entry.bundle}`);
    }
    expect(config.asarUnpack).toEqual(expect.arrayContaining(["dist/electron/package.json", "dist/electron/assets/**"]));
    expect(config.protocols).toEqual([{ name: "Codemode Workbench link", schemes: [LINK_SCHEME] }]);
    expect(config).toMatchObject({ linux: { target: ["AppImage", "deb"] }, mac: { target: "dmg" }, win: { target: "nsis" } });
  });
});

describe("npm run dist where the downloads cannot be reached", () => {
  const refused = (async () => {
    throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
  }) as unknown as typeof fetch;

  it("names the host it cannot reach", async () => {
    expect(await packagingDownloadsUnreachable("45.5.0", { env: {}, fetch: refused, cacheDir: scratch })).toBe("github.com is not reachable (ECONNREFUSED)");
    const seen: string[] = [];
    const answers = (async (url: string) => (seen.push(url), new Response(null, { status: 302 }))) as unknown as typeof fetch;
    expect(await packagingDownloadsUnreachable("45.5.0", { env: {}, fetch: answers, cacheDir: scratch })).toBeUndefined();
    expect(seen[0]).toBe("https://github.com/electron/electron/releases/download/v45.5.0/SHASUMS256.txt");
  });

  it("does not ask for Electron when its zip is already cached", async () => {
    const cache = join(scratch, "cache", "abc123");
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, "electron-v45.5.0-linux-x64.zip"), "");
    const seen: string[] = [];
    const answers = (async (url: string) => (seen.push(url), new Response(null))) as unknown as typeof fetch;
    await packagingDownloadsUnreachable("45.5.0", { env: {}, fetch: answers, cacheDir: join(scratch, "cache") });
    expect(seen).toEqual(["https://github.com/electron-userland/electron-builder-binaries/releases/download/"]);
  });

  it("says so in one line and exits 1, before building anything", async () => {
    // A loopback port nothing listens on: refused at once, on any machine.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const result = spawnSync(process.execPath, [join(root, "scripts/dist.ts")], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, ELECTRON_MIRROR: `http://127.0.0.1:${closed}/`, electron_config_cache: join(scratch, "empty") },
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(new RegExp(`^npm run dist: cannot package here: 127\\.0\\.0\\.1:${closed} is not reachable \\(ECONNREFUSED\\)[^\\n]*\\n$`));
  });
});
