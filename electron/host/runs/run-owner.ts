/**
 * Which process is running a run. The app, `workbench serve` and the CLI share
 * one store, so "a run left `running` at start" is only a crashed run if the
 * process that was running it is gone: recovery must never interrupt a run
 * that another live process is still executing (or that a second store in
 * this very process holds open).
 */
import { hostname, uptime } from "node:os";
import { randomUUID } from "node:crypto";

export interface RunOwner {
  host: string;
  /** Boot time of the machine, in seconds since the epoch: a pid means nothing across reboots. */
  boot: number;
  pid: number;
  /** One per open store, so two stores in one process (tests, app + bridge) tell each other apart. */
  session: string;
}

/** Sessions of the stores open in this process right now. */
const liveSessions = new Set<string>();

export function claimSession(): RunOwner {
  const owner = { host: hostname(), boot: bootTime(), pid: process.pid, session: randomUUID() };
  liveSessions.add(owner.session);
  return owner;
}

export function releaseSession(owner: RunOwner): void {
  liveSessions.delete(owner.session);
}

/** Signal 0 tests for existence; EPERM means it exists but belongs to someone else. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * True when the process that last wrote a run can no longer be running it.
 * WAL needs shared memory, so every process using the store is on this
 * machine: another host name or boot means an earlier life of the machine or
 * container. When in doubt (a live pid that may have been reused) the answer
 * is no: a run wrongly left `running` can be cancelled by a person; a live run
 * wrongly marked `interrupted` could have its writes re-sent.
 */
export function ownerIsGone(
  owner: Partial<RunOwner>,
  self: RunOwner,
  isAlive: (pid: number) => boolean = isProcessAlive,
): boolean {
  if (!owner.session || owner.pid === undefined) return true;
  if (liveSessions.has(owner.session)) return false;
  if (owner.host !== self.host || owner.boot === undefined || Math.abs(owner.boot - self.boot) > BOOT_TOLERANCE_S) return true;
  if (owner.pid === self.pid) return true; // our pid, but not one of our open stores: its earlier holder died
  return !isAlive(owner.pid);
}

/** os.uptime() is whole seconds on some systems and the wall clock drifts (NTP): allow a margin. */
const BOOT_TOLERANCE_S = 120;

function bootTime(): number {
  return Math.round(Date.now() / 1000 - uptime());
}
