/**
 * Opening the workbench of a data directory for one CLI command: the same
 * composition the app and `workbench serve` use, with notices (a store moved
 * aside, interrupted runs) told on stderr and everything closed afterwards.
 */
import { InvalidArgumentError } from "commander";
import { resolveDataDir } from "../host/data-dir.ts";
import { Workbench, type WorkbenchOptions } from "../host/workbench.ts";
import { damagedStoreError } from "./doctor.ts";
import { CliError, type CliIo } from "./io.ts";

export interface DataDirFlag {
  dataDir?: string;
}

export async function withWorkbench<T>(io: CliIo, flags: DataDirFlag, fn: (workbench: Workbench) => Promise<T>, options: Partial<WorkbenchOptions> = {}): Promise<T> {
  const dataDir = resolveDataDir({ flag: flags.dataDir, env: io.env });
  const opened = Workbench.open({
    dataDir,
    env: io.env,
    sandboxSize: 1,
    log: (message) => {
      if (io.env.WORKBENCH_DEBUG) io.stderr(`debug: ${message}\n`);
    },
    ...options,
  });
  if (!opened.ok) throw new CliError(opened.message);
  for (const notice of opened.notices) io.stderr(`note: ${notice}\n`);
  try {
    return await fn(opened.workbench);
  } catch (err) {
    throw damagedStoreError(err, opened.workbench.store.path) ?? err;
  } finally {
    const waited = await finishCallsOnTheWire(io, opened.workbench);
    await opened.workbench.close(waited === "gave_up" ? "the command ended after waiting as long as the API's timeout allows" : undefined);
  }
}

const gaveUp = new WeakSet<Workbench>();

/**
 * A run can end while a call it started still waits for the upstream (the
 * program returned without awaiting it, a limit, a cancel). Before a command
 * exits it waits for such calls, at most as long as their APIs' timeouts allow,
 * so that each call's record says how it really ended; it says so on stderr.
 * A call still unanswered then is recorded `unknown` when the workbench closes.
 */
export async function finishCallsOnTheWire(io: CliIo, workbench: Workbench): Promise<"none" | "finished" | "gave_up"> {
  if (gaveUp.has(workbench)) return "gave_up"; // once per command: `run` waits before it prints, the command's end does not wait again
  const calls = workbench.engine.wire.list();
  if (calls.length === 0) return "none";
  const boundMs = workbench.engine.wire.longestRemainingMs() + 1_000;
  const which = calls.map((c) => `${c.runId} call ${c.index}: ${c.operation}`).join(", ");
  io.stderr(`note: ${calls.length === 1 ? "1 call is" : `${calls.length} calls are`} still waiting for an answer after the run ended (${which}); waiting for ${calls.length === 1 ? "it" : "them"} (at most ${Math.ceil(boundMs / 1000)} s, by the API's timeout) so that the record says how ${calls.length === 1 ? "it" : "they"} ended\n`);
  if (await workbench.finishCallsOnTheWire(boundMs)) {
    io.stderr(`note: recorded; see it with: workbench runs show ${calls[0]!.runId}\n`);
    return "finished";
  }
  gaveUp.add(workbench);
  const left = workbench.engine.wire.list().length;
  io.stderr(`note: stopped waiting; ${left === 1 ? "1 call is" : `${left} calls are`} recorded as unknown: verify upstream before retrying\n`);
  return "gave_up";
}

/** A commander option parser for whole numbers of at least `min`. */
export function positiveInteger(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`must be a whole number${min > 1 ? ` of at least ${min}` : " above 0"}`);
    }
    return n;
  };
}
