/**
 * Starts the real `workbench serve` as a child process on a free port with a
 * fresh data directory, and reads the URL it prints. Tests never talk to a
 * stand-in host.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REPO = new URL("../../", import.meta.url).pathname;
const URL_PATTERN = /(http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/;

export interface ServeHandle {
  /** The URL to open, with the session token in its fragment. */
  url: string;
  origin: string;
  dataDir: string;
  output(): string;
  stop(): Promise<void>;
}

export function freshDataDir(): string {
  return mkdtempSync(join(tmpdir(), "workbench-e2e-"));
}

/** `workbench <args>` from source, for setup before serve starts (e.g. `api add`). */
export function workbenchCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(REPO, "bin/workbench.js"), ...args], { cwd: REPO, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** WORKBENCH_E2E_BIN runs the tests against another build of the CLI (same arguments as bin/workbench.js). */
export async function startServe(options: { dataDir?: string; keepDataDir?: boolean; args?: string[] } = {}): Promise<ServeHandle> {
  const dataDir = options.dataDir ?? freshDataDir();
  const child: ChildProcess = spawn(process.execPath, [process.env.WORKBENCH_E2E_BIN ?? join(REPO, "bin/workbench.js"), "serve", "--data-dir", dataDir, "--port", "0", ...(options.args ?? [])], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`workbench serve printed no URL within 60 s:\n${out}`)), 60_000);
    const check = () => {
      const match = URL_PATTERN.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`workbench serve exited with ${code} before printing its URL:\n${out}`));
    });
  });

  return {
    url,
    origin: new URL(url).origin,
    dataDir,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        const timeout = new Promise((resolve) => setTimeout(resolve, 10_000, "timeout"));
        if ((await Promise.race([exited, timeout])) === "timeout") child.kill("SIGKILL");
      }
      if (!options.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
