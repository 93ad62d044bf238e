/**
 * `workbench run --code <file|->`: runs a program in the sandbox and prints its
 * envelope (DESIGN.md, "The envelope") as JSON on stdout.
 *
 * Exit status: 0 whenever an envelope was printed, also for a run that failed
 * (the envelope's `status` and `error` say how); 1 when none could be made (an
 * unreadable program file, a bad flag). Programs that call APIs fail with a
 * clear message for now: no API is wired to this command yet.
 */
import { InvalidArgumentError, type Command } from "commander";
import { outcomeToEnvelope, newRunId } from "../host/sandbox/envelope.ts";
import { SandboxPool } from "../host/sandbox/pool.ts";
import type { HostCallHandler, RunLimits } from "../host/sandbox/types.ts";
import type { Envelope } from "../../shared/envelope.ts";
import { printJson, readCodeArg, type CliIo } from "./io.ts";

interface RunFlags {
  code: string;
  dataDir?: string;
  memoryMb?: number;
  timeoutMs?: number;
  wallMs?: number;
}

const NO_APIS_MESSAGE = "`workbench run` cannot call APIs yet: it runs programs that make no API calls";

/** Gives programs an `apis` that explains itself instead of a bare ReferenceError. */
const NO_APIS_PRELUDE = `
globalThis.apis = new Proxy(Object.freeze({}), {
  get(_target, name) {
    if (typeof name !== "string") return undefined;
    throw new Error("apis." + name + ": " + ${JSON.stringify(NO_APIS_MESSAGE)});
  },
});`;

const noApiCalls: HostCallHandler = async () => ({ ok: false, error: { name: "CallRejected", message: NO_APIS_MESSAGE } });

export function registerRunCommands(program: Command, io: CliIo): void {
  program
    .command("run")
    .description("Run a program (an async arrow function or a function body, JavaScript or TypeScript) in the sandbox and print its envelope as JSON. Exits 0 whenever an envelope is printed, even for a failed run.")
    .requiredOption("--code <file|->", "the program: a file, or - to read stdin")
    // Accepted now so scripts can pass it; runs are saved there once the run store is wired to this command.
    .option("--data-dir <DIR>", "the workbench data directory")
    .option("--memory-mb <N>", "memory limit of the run, in MiB (at least 16; default 128)", positiveInteger(16))
    .option("--timeout-ms <N>", "compute-time limit, in ms (default 10000)", positiveInteger(1))
    .option("--wall-ms <N>", "wall-clock limit, in ms, host calls included (default 60000)", positiveInteger(1))
    .action(async (flags: RunFlags) => {
      const code = await readCodeArg(io, flags.code);
      printJson(io, await runToEnvelope(code, limitsFromFlags(flags), (message) => io.stderr(`${message}\n`)));
    });
}

/** Runs one program in a pool of its own and returns its envelope. */
export async function runToEnvelope(code: string, limits: Partial<RunLimits>, log: (message: string) => void): Promise<Envelope> {
  const pool = new SandboxPool({ size: 1, log });
  try {
    const outcome = await pool.run({ code, prelude: NO_APIS_PRELUDE, limits, onCall: noApiCalls });
    return outcomeToEnvelope(newRunId(), outcome);
  } finally {
    await pool.close();
  }
}

function limitsFromFlags(flags: RunFlags): Partial<RunLimits> {
  const limits: Partial<RunLimits> = {};
  if (flags.memoryMb !== undefined) limits.memoryBytes = flags.memoryMb * 1024 * 1024;
  if (flags.timeoutMs !== undefined) limits.cpuMs = flags.timeoutMs;
  if (flags.wallMs !== undefined) limits.wallMs = flags.wallMs;
  return limits;
}

function positiveInteger(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`must be a whole number${min > 1 ? ` of at least ${min}` : " above 0"}`);
    return n;
  };
}
