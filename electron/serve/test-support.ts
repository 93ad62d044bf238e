/**
 * For tests and the bench: a CLI io that captures output, `workbench serve`
 * as a real child process (found ready by its printed URL), and an MCP
 * client over Streamable HTTP that is ready for server notifications.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Envelope } from "../../shared/envelope.ts";
import { main } from "../cli.ts";
import type { CliIo } from "../cli/io.ts";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const WORKBENCH_BIN = join(REPO_ROOT, "bin", "workbench.js");
export const TEST_VAULT_KEY = Buffer.alloc(32, 7).toString("base64");

export function tempDataDir(prefix = "wb-serve-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Environment for a child workbench: never the real home's data or key. */
export function childEnv(dataDir: string): NodeJS.ProcessEnv {
  return { ...process.env, WORKBENCH_DATA_DIR: dataDir, WORKBENCH_VAULT_KEY: TEST_VAULT_KEY, WORKBENCH_DEBUG: "" };
}

export async function runCli(argv: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readStdin: async () => "",
    env: { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_VAULT_KEY: TEST_VAULT_KEY },
    exit: () => {},
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/**
 * `node bin/workbench.js <args> --data-dir <dir>` as a child process, fed `input` on stdin. Asynchronous, so
 * that servers living in the test's own process (an upstream the program calls) can answer it.
 */
export function runCliProcess(dataDir: string, args: string[], input = ""): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [WORKBENCH_BIN, ...args, "--data-dir", dataDir], { cwd: REPO_ROOT, env: childEnv(dataDir), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => void (stdout += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => void (stderr += c.toString("utf8")));
  child.stdin!.end(input);
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr })));
}

export interface ServeChild {
  child: ChildProcess;
  openUrl: string;
  mcpUrl: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `node bin/workbench.js serve` and resolves once it printed its URL. */
export function spawnServe(dataDir: string, args: string[] = []): Promise<ServeChild> {
  const child = spawn(process.execPath, [WORKBENCH_BIN, "serve", "--data-dir", dataDir, ...args], { cwd: REPO_ROOT, env: childEnv(dataDir), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => void (err += c.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 20 s; stderr: ${err}`)), 20_000);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      const open = /open: +(\S+)/.exec(out)?.[1];
      const mcp = /mcp: +(\S+)/.exec(out)?.[1];
      if (open && mcp) {
        clearTimeout(timer);
        resolve({
          child,
          openUrl: open,
          mcpUrl: mcp,
          stdout: () => out,
          stderr: () => err,
          stop: async () => {
            if (child.exitCode === null) child.kill("SIGTERM");
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before it was ready; stderr: ${err}`));
    });
  });
}

/** A real SDK client over Streamable HTTP; resolves once its standalone event stream is open, so notifications can reach it. */
export async function httpMcpClient(url: string, token: string, name = "test-agent", version = "1.2.3"): Promise<Client> {
  const client = new Client({ name, version }, { capabilities: {} });
  let streamOpen!: () => void;
  const opened = new Promise<void>((resolve) => (streamOpen = resolve));
  const watchingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if ((init?.method ?? "GET") === "GET" && res.ok) streamOpen();
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: watchingFetch });
  await client.connect(transport);
  await opened;
  return client;
}

/** The envelope in a tool result's text content. */
export function envelopeOf(result: unknown): Envelope {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return JSON.parse(content[0]!.text) as Envelope;
}
