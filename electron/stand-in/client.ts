/**
 * Starts the relocated app's main.js under plain Node with the stand-in for
 * `electron`, and talks to the stand-in (control.ts) over the child's IPC
 * channel.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ControlOp } from "./control.ts";

const REGISTER = fileURLToPath(new URL("./register.ts", import.meta.url));

export interface StandInApp {
  child: ChildProcess;
  /** Everything the app wrote to stdout and stderr. */
  output(): string;
  send<T = unknown>(op: ControlOp): Promise<T>;
  /** Polls `state` until `ready` holds (or the timeout). */
  until<T>(what: string, probe: (state: StandInState) => T | undefined, timeoutMs?: number): Promise<T>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StandInState {
  ready: boolean;
  calls: { api: string; args: unknown[] }[];
  ipcChannels: string[];
  ipcListeners: string[];
  schemes: string[];
  window?: { options: Record<string, unknown>; url: string; visible: boolean; focused: boolean; sent: { channel: string; payload: { type?: string; target?: unknown } }[] };
  badge: number;
  notifications: { title?: string; body?: string }[];
  tray?: { tooltip: string; items: unknown[] };
  appMenu: unknown[];
}

export function startStandInApp(main: string, options: { cwd: string; args?: string[]; env?: NodeJS.ProcessEnv }): StandInApp {
  const child = spawn(process.execPath, ["--import", REGISTER, main, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  child.on("message", (raw) => {
    const reply = raw as { id: number; ok: boolean; value?: unknown; error?: string };
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.ok) waiter?.resolve(reply.value);
    else waiter?.reject(new Error(`stand-in: ${reply.error}`));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      for (const waiter of pending.values()) waiter.reject(new Error(`the app exited (${signal ?? code}) before answering; its output:\n${output}`));
      pending.clear();
      resolve({ code, signal });
    }),
  );
  const app: StandInApp = {
    child,
    output: () => output,
    exited,
    send<T>(op: ControlOp): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        if (!child.connected) return reject(new Error(`the app is not running; its output:\n${output}`));
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, ...op });
      });
    },
    async until<T>(what: string, probe: (state: StandInState) => T | undefined, timeoutMs = 20_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = probe(await app.send<StandInState>({ op: "state" }));
        if (found !== undefined && found !== false) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the app's output ends:\n${output.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
  return app;
}
