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
    await opened.workbench.close();
  }
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
