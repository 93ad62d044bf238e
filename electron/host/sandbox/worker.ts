/**
 * Entry of a sandbox worker thread: one run at a time, each in a fresh QuickJS
 * instance (guest-run.ts). The worker exists so the pool can kill a run stuck
 * inside a native builtin, where QuickJS's interrupt handler is never called.
 * It keeps what is worth keeping between runs: the guest sources, dataset
 * readers, and parsed datasets (bounded, by content key).
 */
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { assetPath } from "../common/assets.ts";
import { DatasetCache } from "./dataset-cache.ts";
import { GuestRun } from "./guest-run.ts";
import { createGuestInstance, type GuestInstance } from "./guest-instance.ts";
import type { FromWorker, ToWorker, WorkerInit, WorkerRunRequest, WorkerRunResult } from "./protocol.ts";
import type { DatasetReader } from "./types.ts";
import { CPU_MICROS, SEGMENT_START_MICROS } from "./timing.ts";

const init = workerData as WorkerInit;
const port = parentPort!;
const timing = new BigInt64Array(init.timing);
const bootstrapSource = readFileSync(assetPath("guestBootstrap"), "utf8");
const inspectSource = readFileSync(assetPath("guestInspect"), "utf8");
const datasetCache = new DatasetCache(init.datasetCacheChars);
const readers = new Map<string, Promise<DatasetReader>>();

// The next run's instance, built while the worker waits (see guest-instance.ts).
let spare: Promise<GuestInstance> | undefined;
function prepareSpare(): void {
  spare = createGuestInstance(init.wasmModule, init.spareMemoryBytes, bootstrapSource);
  spare.catch(() => (spare = undefined));
}
function takeInstance(memoryBytes: number): Promise<GuestInstance> {
  const ready = spare;
  if (ready && memoryBytes === init.spareMemoryBytes) {
    spare = undefined;
    return ready;
  }
  return createGuestInstance(init.wasmModule, memoryBytes, bootstrapSource);
}

interface CurrentRun {
  runId: number;
  stopped: boolean;
  guest?: GuestRun;
  onDatasets?: (message: Extract<ToWorker, { type: "datasets" }> | undefined) => void;
}
let current: CurrentRun | undefined;

const post = (message: FromWorker) => port.postMessage(message);

port.on("message", (message: ToWorker) => {
  if (message.type === "run") {
    void runOne(message);
    return;
  }
  if (!current || current.runId !== message.runId) return;
  if (message.type === "answer") current.guest?.deliver(message);
  else if (message.type === "datasets") current.onDatasets?.(message);
  else if (message.type === "stop") {
    current.stopped = true;
    current.guest?.stop();
    current.onDatasets?.(undefined);
  }
});
prepareSpare();
post({ type: "ready" });

async function runOne(request: WorkerRunRequest): Promise<void> {
  const run: CurrentRun = { runId: request.runId, stopped: false };
  current = run;
  let result: WorkerRunResult;
  try {
    const datasets = await prepareDatasets(request, run);
    if (run.stopped) result = { status: "stopped" };
    else if (!datasets.ok) result = { status: "failed", error: { reason: "Unavailable", name: "DatasetUnavailable", message: datasets.message } };
    else {
      const instance = () => takeInstance(request.limits.memoryBytes);
      run.guest = new GuestRun(request, { instance, inspectSource, datasets: datasets.byName, post, timing });
      result = await run.guest.execute();
    }
  } catch (err) {
    post({ type: "host-log", message: `sandbox: run ${request.runId} failed inside the worker: ${err instanceof Error ? err.stack : String(err)}` });
    result = { status: "failed", error: { reason: "Unavailable", name: "SandboxError", message: "the sandbox failed to run the program" } };
  }
  current = undefined;
  Atomics.store(timing, CPU_MICROS, 0n);
  Atomics.store(timing, SEGMENT_START_MICROS, 0n);
  post({ type: "done", runId: request.runId, result, cpuMs: run.guest?.cpuMs ?? 0, droppedLogLines: run.guest?.droppedLogLines });
  // After the reply, so building the next instance never delays this one's outcome.
  if (!spare) setImmediate(prepareSpare);
}

type PreparedDatasets = { ok: true; byName: Map<string, { data: unknown; read: DatasetReader }> } | { ok: false; message: string };

/** Asks the pool for the JSON of datasets this worker lacks, then pairs each dataset with its reader. */
async function prepareDatasets(request: WorkerRunRequest, run: CurrentRun): Promise<PreparedDatasets> {
  const byName = new Map<string, { data: unknown; read: DatasetReader }>();
  if (request.datasets.length === 0) return { ok: true, byName };
  const keys = new Set(request.datasets.map((d) => d.key));
  const missing = [...keys].filter((k) => !datasetCache.has(k));
  if (missing.length > 0) {
    const reply = await new Promise<Extract<ToWorker, { type: "datasets" }> | undefined>((resolve) => {
      run.onDatasets = resolve;
      post({ type: "need", runId: request.runId, keys: missing });
    });
    run.onDatasets = undefined;
    if (!reply) return { ok: false, message: "the run was stopped" };
    if ("failure" in reply) return { ok: false, message: reply.failure };
    for (const key of missing) {
      const name = request.datasets.find((d) => d.key === key)!.name;
      const text = reply.texts[key];
      if (typeof text !== "string") return { ok: false, message: `dataset "${name}" was not provided` };
      try {
        datasetCache.add(key, text, keys);
      } catch {
        return { ok: false, message: `dataset "${name}" is not valid JSON` };
      }
    }
  }
  for (const dataset of request.datasets) {
    let read: DatasetReader;
    try {
      read = await loadReader(dataset.reader);
    } catch (err) {
      post({ type: "host-log", message: `sandbox: reader module ${dataset.reader} failed to load: ${err instanceof Error ? err.stack : String(err)}` });
      return { ok: false, message: `the reader of dataset "${dataset.name}" could not be loaded` };
    }
    byName.set(dataset.name, { data: datasetCache.get(dataset.key), read });
  }
  return { ok: true, byName };
}

function loadReader(url: string): Promise<DatasetReader> {
  let reader = readers.get(url);
  if (!reader) {
    reader = import(url).then((mod: { read?: unknown }) => {
      if (typeof mod.read !== "function") throw new Error(`${url} does not export a function named read`);
      return mod.read as DatasetReader;
    });
    // A failed import is not cached: a fixed module loads on the next run.
    reader.catch(() => readers.delete(url));
    readers.set(url, reader);
  }
  return reader;
}
