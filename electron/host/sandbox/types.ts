/**
 * The sandbox's contract with the rest of the host. The sandbox knows nothing
 * of APIs, specs or approvals: it runs a program with a prelude, gives it async
 * host calls and sync dataset reads, and enforces limits. The tools layer
 * (electron/host/tools/) builds `apis`, `specs` and `vault` on top.
 */
import type { JsonValue } from "../../../shared/json.ts";
import type { RunFailureReason } from "../../../shared/envelope.ts";

export interface RunLimits {
  /** Cap of the run's WebAssembly.Memory (everything the guest allocates, ArrayBuffers included). */
  memoryBytes: number;
  /** Guest compute time, checked by the interrupt handler. */
  cpuMs: number;
  /** Wall clock from start to end, host calls included; enforced by killing the worker. */
  wallMs: number;
  /** Async host calls the program may make. */
  maxCalls: number;
  /** Size of the result as JSON; over it the run fails `OutputTooLarge`. */
  maxOutputBytes: number;
  maxLogLines: number;
  maxLogBytes: number;
}

export const DEFAULT_LIMITS: RunLimits = {
  memoryBytes: 128 * 1024 * 1024,
  cpuMs: 10_000,
  wallMs: 60_000,
  maxCalls: 100,
  maxOutputBytes: 1024 * 1024,
  maxLogLines: 1_000,
  maxLogBytes: 256 * 1024,
};

/** A read-only data set the guest can query synchronously (e.g. one API's artifact for search). */
export interface Dataset {
  /** Content key (e.g. the artifact hash): workers cache loaded datasets by it. */
  key: string;
  /**
   * Produces the dataset's JSON text; called when a worker lacks the key (once per
   * worker, again only if that worker's bounded cache evicted it).
   */
  load(): string | Promise<string>;
  /** URL of a module (loaded in the worker, cached) whose export `read: DatasetReader` answers queries. */
  reader: string;
}

export interface RunRequest {
  /** The program as the user or agent wrote it: an async arrow function or a function body; JS or TS. */
  code: string;
  /**
   * Trusted JavaScript evaluated in the guest before the program (after the
   * bridge globals exist). It builds convenience objects such as `apis.<name>`
   * and `specs.<name>` over the raw bridge; see "Guest bridge" below.
   */
  prelude?: string;
  /** Plain JSON values installed as deep-frozen globals (`vault`, `context`, ...). */
  globals?: Record<string, JsonValue>;
  /** Datasets by name, readable with `__host.read(name, query)`. */
  datasets?: Record<string, Dataset>;
  limits?: Partial<RunLimits>;
  /** Milliseconds since the epoch that `Date.now()` returns for the whole run. Default: now. */
  clock?: number;
  /** Seed of `Math.random()`. Default: random. */
  seed?: number;
  /** Answers the guest's async host calls. */
  onCall?: HostCallHandler;
  signal?: AbortSignal;
}

/**
 * Guest bridge (what the prelude and the program see):
 *   __host.call(name: string, args: any): Promise<any>
 *       args are copied out as JSON made inside the guest (getters, toJSON and
 *       proxy traps run there, under the run's limits, never in the host; Map
 *       becomes an object, Set an array, BigInt a decimal string); the answer is
 *       copied in as JSON. Arguments too large or nested too deep (see
 *       call-arguments.ts) do not cross: the handler gets `refused` (why) and
 *       `args: null`, so the call is still answered and recorded. A rejected call throws an Error whose `name` and
 *       `message` come from the handler's error, plus any `details` as
 *       `error.details`. A handler that throws (or answers with something that is
 *       not JSON) reaches the guest as `Error: host call failed`; the detail goes
 *       to the pool's log. Calls past `maxCalls` end the run (`CallLimit`).
 *   __host.read(dataset: string, query: any): any
 *       synchronous; the worker answers from the dataset (see DatasetReader).
 *       A string answer crosses as is; anything else as a JSON copy.
 * A run ends when the program's promise settles: calls still in flight then are
 * abandoned (the handler keeps running; its answer is ignored).
 */
export type HostCallHandler = (call: { index: number; name: string; args: JsonValue; refused?: string }) => Promise<HostCallAnswer>;

export type HostCallAnswer =
  | { ok: true; value: JsonValue }
  | { ok: false; error: { name: string; message: string; details?: JsonValue } }
  /** Stop the run now (a call waits for a person); the outcome is `suspended`. */
  | { suspend: true };

/** Runs inside the worker; must be pure, fast and total (a bad query returns an error value, never throws). */
export type DatasetReader = (data: unknown, query: JsonValue) => JsonValue;

/**
 * How a run ended. A result is the program's value as JSON: `undefined` (and a
 * top-level function or symbol) becomes null, and the conversions of __host.call
 * apply; a cycle fails the run (`Error`).
 */
export type RunOutcome =
  | ({ status: "completed"; result: JsonValue } & RunFacts)
  | ({ status: "failed"; error: RunError } & RunFacts)
  | ({ status: "suspended"; callIndex: number } & RunFacts);

export interface RunError {
  reason: RunFailureReason;
  name: string;
  message: string;
  /** Where in the program as written (1-based), when known: syntax errors and uncaught throws. */
  at?: { line: number; column: number };
}

export interface RunFacts {
  logs: string[];
  /** Whether logs were cut at the line or byte limit. */
  logsTruncated: boolean;
  clock: number;
  seed: number;
  /** Async host calls the guest started. */
  calls: number;
  /** Guest compute time (also measured for a run whose worker was killed). */
  cpuMs: number;
  /** From the moment a worker took the run to its end (time queued is not counted). */
  wallMs: number;
}
