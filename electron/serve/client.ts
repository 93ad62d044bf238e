/**
 * A small client of the HTTP bridge, for CLI commands that must act in the
 * process that owns the runs (a decision continues its run there, so the
 * agent that started it is notified and the run sees that process's APIs).
 * It finds the instance through the lockfile, trades the session token for
 * the cookie like the browser does, and calls channels as the CLI.
 */
import type { ChannelError, ChannelName, ReplyOf, RequestOf } from "../../shared/contract.ts";
import { CLIENT_HEADER } from "./bridge.ts";
import { liveLock, lockAnswers, type ServeLock } from "./lockfile.ts";

export class BridgeCallError extends Error {
  readonly code: ChannelError["error"]["code"] | "unreachable";
  constructor(code: BridgeCallError["code"], message: string) {
    super(message);
    this.name = "BridgeCallError";
    this.code = code;
  }
}

export class BridgeClient {
  readonly lock: ServeLock;
  #cookie: string | undefined;

  constructor(lock: ServeLock) {
    this.lock = lock;
  }

  async call<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ReplyOf<C>> {
    const cookie = await this.#session();
    const res = await this.#fetch(`/api/${channel}`, { "content-type": "application/json", cookie, [CLIENT_HEADER]: "cli" }, JSON.stringify(request));
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw new BridgeCallError("failed", `${channel}: the workbench at ${this.lock.url} answered HTTP ${res.status} with something that is not JSON`);
    }
    if (!res.ok) {
      const error = (body as Partial<ChannelError> | null)?.error;
      throw new BridgeCallError(error?.code ?? "failed", error?.message ?? `${channel} failed with HTTP ${res.status}`);
    }
    return body as ReplyOf<C>;
  }

  async #session(): Promise<string> {
    if (this.#cookie) return this.#cookie;
    const res = await this.#fetch("/auth/session", { "content-type": "application/json" }, JSON.stringify({ token: this.lock.sessionToken }));
    const set = res.headers.get("set-cookie");
    if (res.status !== 204 || !set) throw new BridgeCallError("failed", `the workbench at ${this.lock.url} refused the session token in its lockfile (HTTP ${res.status}); is the lockfile from another instance?`);
    this.#cookie = set.split(";")[0]!;
    return this.#cookie;
  }

  async #fetch(path: string, headers: Record<string, string>, body: string): Promise<Response> {
    try {
      return await fetch(`${this.lock.url}${path}`, { method: "POST", headers, body, redirect: "error" });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new BridgeCallError("unreachable", `the workbench at ${this.lock.url} did not answer (${cause ?? (err instanceof Error ? err.message : String(err))})`);
    }
  }
}

/** A client of the instance serving `dataDir`, or undefined when none runs (no lockfile, a dead pid, or nothing listening). */
export async function findRunningInstance(dataDir: string): Promise<BridgeClient | undefined> {
  const lock = liveLock(dataDir);
  if (!lock || !(await lockAnswers(lock))) return undefined;
  return new BridgeClient(lock);
}
