/**
 * How a guest failure becomes a run failure reason. QuickJS reports running out
 * of its capped memory as an ordinary `InternalError`, and a recursion that
 * outruns the worker's native stack as a host `RangeError`; both must read as
 * what they are (`Memory`, a stack overflow), not as a crash of the sandbox.
 */
import { programLocation } from "./program.ts";
import type { WorkerFailure } from "./protocol.ts";
import type { RunLimits } from "./types.ts";

export interface DescribedError {
  name: string;
  message: string;
  stack?: string;
}

export function memoryFailure(limits: RunLimits): WorkerFailure {
  const mib = Math.round((limits.memoryBytes / (1024 * 1024)) * 10) / 10;
  return { reason: "Memory", name: "InternalError", message: `out of memory: the run may use at most ${mib} MiB` };
}

export function computeTimeout(limits: RunLimits): WorkerFailure {
  return { reason: "Timeout", name: "Timeout", message: `the program used more than ${limits.cpuMs} ms of compute time` };
}

export function callLimitFailure(limits: RunLimits): WorkerFailure {
  return { reason: "CallLimit", name: "CallLimit", message: `the program started more than ${limits.maxCalls} host calls` };
}

export function deadlockFailure(): WorkerFailure {
  return {
    reason: "Deadlock",
    name: "Deadlock",
    message: "the program is waiting on a promise that nothing can settle (no host call in flight, no job queued)",
  };
}

/**
 * A guest error value, described inside the guest, as a run failure. When memory
 * is exhausted QuickJS cannot even allocate its "out of memory" error and throws
 * null instead; `memoryRefused` (the memory refused to grow during the run)
 * tells that apart from a program's own `throw null`.
 */
export function failureFromGuestError(error: DescribedError, limits: RunLimits, firstLineShift: number, memoryRefused = false): WorkerFailure {
  if (error.name === "InternalError" && /^(out of memory|string too long)$/.test(error.message)) return memoryFailure(limits);
  if (memoryRefused && /^the program threw (null|undefined)$/.test(error.message)) return memoryFailure(limits);
  if (error.name === "InternalError" && error.message === "interrupted") return computeTimeout(limits);
  const at = programLocation(error.stack, firstLineShift);
  if (error.name === "SyntaxError" && at) {
    return { reason: "Error", name: "SyntaxError", message: `${error.message} (line ${at.line}, column ${at.column})`, at };
  }
  return { reason: "Error", name: error.name, message: error.message, ...(at ? { at } : {}) };
}

/**
 * An exception thrown on the host side while the guest ran: the instance is
 * left in an unknown state and must be dropped.
 */
export function failureFromHostException(err: unknown, memoryRefused: boolean, limits: RunLimits): WorkerFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RangeError && /call stack/i.test(message)) {
    return { reason: "Error", name: "InternalError", message: "stack overflow" };
  }
  if (memoryRefused || /out of memory|OOM/i.test(message)) return memoryFailure(limits);
  return { reason: "Error", name: "InternalError", message: `the sandbox stopped the program: ${message}` };
}
