/**
 * Messages between the pool (main thread) and a sandbox worker. Every value
 * from the guest crosses as JSON text produced inside the guest; the main
 * thread parses it, so no guest object, getter or proxy ever reaches the host.
 */
import type { RunFailureReason } from "../../../shared/envelope.ts";
import type { RunLimits } from "./types.ts";
import type { WasmModule } from "./wasm.ts";

/** Given to each worker at start. */
export interface WorkerInit {
  wasmModule: WasmModule;
  /** Bound of the worker's parsed-dataset cache, in characters of dataset JSON. */
  datasetCacheChars: number;
  /** Memory cap of the spare instance the worker prepares between runs (the pool's default). */
  spareMemoryBytes: number;
  /**
   * Two BigInt64 cells the worker keeps current: guest compute time of the
   * current run (µs), and when the current guest segment began (epoch µs, 0 when
   * the guest is not running). The pool reads them to tell a worker stuck in
   * native code from one waiting for host answers, and to report compute time
   * of a run whose worker it had to kill.
   */
  timing: SharedArrayBuffer;
}

export interface DatasetRef {
  name: string;
  key: string;
  reader: string;
}

export interface WorkerRunRequest {
  type: "run";
  runId: number;
  code: string;
  prelude: string;
  /** JSON text of the globals object. */
  globalsText: string;
  datasets: DatasetRef[];
  limits: RunLimits;
  clock: number;
  seed: number;
}

export type HostAnswerMessage =
  | { type: "answer"; runId: number; index: number; ok: true; valueText: string }
  | { type: "answer"; runId: number; index: number; ok: false; errorText: string };

export type ToWorker =
  | WorkerRunRequest
  | HostAnswerMessage
  | { type: "datasets"; runId: number; texts: Record<string, string> }
  | { type: "datasets"; runId: number; failure: string }
  /** End the current run now (it already ended for the caller: suspended, cancelled, out of time). */
  | { type: "stop"; runId: number };

export interface WorkerFailure {
  reason: RunFailureReason;
  name: string;
  message: string;
  at?: { line: number; column: number };
}

export type WorkerRunResult =
  | { status: "completed"; resultText: string }
  | { status: "failed"; error: WorkerFailure }
  | { status: "stopped" };

export type FromWorker =
  | { type: "ready" }
  | { type: "need"; runId: number; keys: string[] }
  /** `refused` says why the arguments did not cross (too large, too deep); argsText is then "null". */
  | { type: "call"; runId: number; index: number; name: string; argsText: string; refused?: string }
  | { type: "log"; runId: number; line: string }
  /** The run's log limit was reached; later lines are counted, not sent. */
  | { type: "logs-full"; runId: number }
  /** `droppedLogLines` is known when the program reported its outcome. */
  | { type: "done"; runId: number; result: WorkerRunResult; cpuMs: number; droppedLogLines?: number }
  /** Detail for the host's log (never shown to the guest). */
  | { type: "host-log"; message: string };
