/** Helpers shared by the run store's tests: temp data dirs, a controllable clock, sample runs and calls. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewCall, NewRun } from "./store.ts";

export function tempDataDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "run-store-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A clock that moves one second forward each time it is read, so every record has its own time. */
export function steppingClock(start = Date.UTC(2025, 0, 1)): { now: () => Date; peek: () => Date } {
  let t = start;
  return { now: () => new Date((t += 1000)), peek: () => new Date(t) };
}

export function sampleRun(overrides: Partial<NewRun> = {}): NewRun {
  return {
    source: { kind: "mcp", client: "claude-code 2.1.0" },
    tool: "execute",
    policy: "all",
    program: "async () => {\n  return await apis.petstore.listPets({ limit: 2 });\n}",
    clock: Date.UTC(2025, 0, 1),
    seed: 42,
    ...overrides,
  };
}

export function sampleCall(runId: string, index: number, overrides: Partial<NewCall> = {}): NewCall {
  return {
    runId,
    index,
    api: "petstore",
    operation: "GET /pets",
    operationId: "listPets",
    arguments: { limit: 2 },
    argumentsHash: `hash-${index}`,
    request: { method: "GET", url: "https://petstore.example/v1/pets?limit=2", headers: { accept: "application/json" } },
    status: "in_flight",
    ...overrides,
  };
}
