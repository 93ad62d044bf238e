/**
 * The four host functions a guest context gets, handed to the bootstrap only
 * (never made global). They accept strings and nothing else: the bootstrap
 * serialises inside the guest, so no guest getter, toJSON or proxy trap runs on
 * the host side, and the host never holds a guest object.
 *   call(name, argsText)    → a deferred promise, settled when the host answers
 *   read(dataset, queryText) → JSON text, answered here by the dataset's reader
 *   log(text)               → 1: kept, send more; 0: kept, send no more; -1: not kept
 *   finish(kind, text, droppedLogLines) → how the program ended
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import { callArgumentProblem } from "./call-arguments.ts";
import { callLimitFailure } from "./guest-failure.ts";
import type { FromWorker, WorkerFailure } from "./protocol.ts";
import type { DatasetReader, RunLimits } from "./types.ts";

export type GuestReport = { kind: "result" | "error" | "too_large"; text: string; droppedLogLines: number };

export interface NativeHooks {
  runId: number;
  limits: RunLimits;
  datasets: Map<string, { data: unknown; read: DatasetReader }>;
  post(message: FromWorker): void;
  onCall(index: number, deferred: QuickJSDeferredPromise): void;
  onFatal(failure: WorkerFailure): void;
  onReport(report: GuestReport): void;
}

/** Returns a guest object holding the natives; the caller passes it to the bootstrap. */
export function installNatives(ctx: QuickJSContext, hooks: NativeHooks): QuickJSHandle {
  const natives = ctx.newObject();
  const stringArg = (handle: QuickJSHandle | undefined, what: string): string => {
    if (!handle || ctx.typeof(handle) !== "string") throw new TypeError(`${what} must be a string`);
    return ctx.getString(handle);
  };

  let calls = 0;
  const call = ctx.newFunction("call", (nameHandle, argsHandle) => {
    const name = stringArg(nameHandle, "__host.call name");
    const argsText = stringArg(argsHandle, "__host.call arguments");
    const index = calls++;
    if (index >= hooks.limits.maxCalls) {
      // Fatal for the run: the interrupt handler stops the guest at its next check.
      hooks.onFatal(callLimitFailure(hooks.limits));
      throw new Error(callLimitFailure(hooks.limits).message);
    }
    const deferred = ctx.newPromise();
    hooks.onCall(index, deferred);
    // Too large or too deep: the host gets the refusal, never the text (see call-arguments.ts).
    const refused = callArgumentProblem(argsText);
    hooks.post(refused ? { type: "call", runId: hooks.runId, index, name, argsText: "null", refused } : { type: "call", runId: hooks.runId, index, name, argsText });
    return deferred.handle;
  });

  const read = ctx.newFunction("read", (nameHandle, queryHandle) => {
    const name = stringArg(nameHandle, "__host.read dataset name");
    const queryText = stringArg(queryHandle, "__host.read query");
    const dataset = hooks.datasets.get(name);
    if (!dataset) throw new Error(`__host.read: no dataset named "${name}" in this run`);
    let value: unknown;
    try {
      value = dataset.read(dataset.data, JSON.parse(queryText));
    } catch (err) {
      hooks.post({ type: "host-log", message: `sandbox: dataset reader for "${name}" threw: ${err instanceof Error ? err.stack : String(err)}` });
      throw new Error(`__host.read: reading dataset "${name}" failed`, { cause: err });
    }
    // A string answer (a big table, a declaration) crosses as is, marked "s"; anything else as JSON, marked "j":
    // encoding a 200 KB string as JSON only to parse it back in the guest costs more than the read itself.
    return ctx.newString(typeof value === "string" ? `s${value}` : `j${JSON.stringify(value ?? null) ?? "null"}`);
  });

  const log = logNative(ctx, hooks);

  const finish = ctx.newFunction("finish", (kindHandle, textHandle, droppedHandle) => {
    const kind = stringArg(kindHandle, "finish kind");
    if (kind !== "result" && kind !== "error" && kind !== "too_large") throw new TypeError("finish kind");
    const dropped = droppedHandle && ctx.typeof(droppedHandle) === "number" ? ctx.getNumber(droppedHandle) : 0;
    hooks.onReport({ kind, text: stringArg(textHandle, "finish text"), droppedLogLines: dropped });
  });

  for (const [key, fn] of [["call", call], ["read", read], ["log", log], ["finish", finish]] as const) {
    ctx.setProp(natives, key, fn);
    fn.dispose();
  }
  return natives;
}

/** Keeps lines until maxLogLines or maxLogBytes, cutting the line that crosses the byte limit. */
function logNative(ctx: QuickJSContext, hooks: NativeHooks): QuickJSHandle {
  const { maxLogLines, maxLogBytes } = hooks.limits;
  let lines = 0;
  let bytes = 0;
  let full = false;
  const markFull = () => {
    if (!full) hooks.post({ type: "logs-full", runId: hooks.runId });
    full = true;
  };
  return ctx.newFunction("log", (textHandle) => {
    if (!textHandle || ctx.typeof(textHandle) !== "string") {
      // The guest dropped a line past the limits.
      markFull();
      return ctx.newNumber(-1);
    }
    if (full || lines >= maxLogLines || bytes >= maxLogBytes) {
      markFull();
      return ctx.newNumber(-1);
    }
    let line = ctx.getString(textHandle);
    let size = Buffer.byteLength(line);
    const room = maxLogBytes - bytes;
    if (size > room) {
      line = cutToBytes(line, room);
      size = Buffer.byteLength(line);
      bytes += size;
      lines++;
      hooks.post({ type: "log", runId: hooks.runId, line });
      markFull();
      return ctx.newNumber(0);
    }
    bytes += size;
    lines++;
    hooks.post({ type: "log", runId: hooks.runId, line });
    // At the limit nothing is lost yet: the guest stops sending and counts what follows.
    return ctx.newNumber(lines >= maxLogLines || bytes >= maxLogBytes ? 0 : 1);
  });
}

function cutToBytes(text: string, maxBytes: number): string {
  // Dropping a split multi-byte character leaves a replacement character at the end.
  return Buffer.from(text).subarray(0, Math.max(0, maxBytes)).toString("utf8").replace(/\uFFFD$/, "");
}
