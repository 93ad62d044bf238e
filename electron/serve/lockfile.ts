/**
 * `<dataDir>/serve.lock.json` (owner-only): which process serves this data
 * directory, on which port, with which tokens, so that the CLI can talk to it
 * (decisions continue runs in the process that owns them) and `workbench
 * mcp` can relay to it. Written when the server listens, removed when it
 * stops; a lockfile whose process is gone is stale and ignored or replaced.
 * Kept through the common JSON-file store, so a damaged lockfile is moved
 * aside (once) like every other file, and one from a newer workbench is left.
 */
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { inspectJsonFile, readJsonFile, writeJsonFile, type JsonFileSpec, type JsonFileState } from "../host/common/json-file.ts";
import { isProcessAlive } from "../host/runs/run-owner.ts";

export const LOCKFILE_NAME = "serve.lock.json";

const lockShape = z.object({
  format: z.literal(1),
  /** What is serving: the app, `workbench serve`, or a headless `workbench mcp`. */
  kind: z.enum(["app", "serve", "mcp"]),
  pid: z.number().int().positive(),
  port: z.number().int().min(1).max(65535),
  /** The base URL, http://127.0.0.1:<port>. */
  url: z.string(),
  /** Exchanged at POST /auth/session for the bridge's cookie. */
  sessionToken: z.string(),
  mcpToken: z.string(),
  startedAt: z.string(),
});
export type ServeLock = z.infer<typeof lockShape>;

export function lockfilePath(dataDir: string): string {
  return join(dataDir, LOCKFILE_NAME);
}

function lockFile(dataDir: string): JsonFileSpec<ServeLock> {
  return { path: lockfilePath(dataDir), schema: lockShape, format: 1 };
}

/** The lock as written, or undefined when there is none we can read (a damaged one is moved aside). */
export function readLock(dataDir: string): ServeLock | undefined {
  const read = readJsonFile(lockFile(dataDir));
  return read.status === "ok" ? read.value : undefined;
}

/** The lockfile's state, changing nothing (for `workbench doctor`). */
export function inspectLock(dataDir: string): JsonFileState<ServeLock> {
  return inspectJsonFile(lockFile(dataDir));
}

/** The lock of a live process, or undefined when there is none or it is stale. */
export function liveLock(dataDir: string, isAlive: (pid: number) => boolean = isProcessAlive): ServeLock | undefined {
  const lock = readLock(dataDir);
  if (!lock) return undefined;
  if (lock.pid !== process.pid && !isAlive(lock.pid)) return undefined;
  return lock;
}

/** True when something accepts connections on the lock's port (a reused pid alone proves nothing). */
export function lockAnswers(lock: ServeLock, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: lock.port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export function writeLock(dataDir: string, lock: ServeLock): void {
  writeJsonFile(lockfilePath(dataDir), lock);
}

/** Removes the lockfile only if it is still ours (another instance may have replaced a lock it found stale). */
export function removeLock(dataDir: string, ours: Pick<ServeLock, "pid" | "sessionToken">): void {
  const current = readLock(dataDir);
  if (current && (current.pid !== ours.pid || current.sessionToken !== ours.sessionToken)) return;
  rmSync(lockfilePath(dataDir), { force: true });
}
