/**
 * The search tool: a program runs against `specs.<name>` for every registered
 * API and only what it returns comes back. Each API's artifact is a sandbox
 * dataset (loaded once per worker, read lazily by spec-reader.ts), so a search
 * over GitHub's 13 MB spec copies only what the program touches. Searches are
 * saved as code runs like any other program.
 */
import { randomInt } from "node:crypto";
import type { Envelope } from "../../../shared/envelope.ts";
import type { RunSource } from "../../../shared/runs.ts";
import { entryUrl } from "../common/assets.ts";
import type { ApiTarget } from "../proxy/types.ts";
import type { CodeRunStore } from "../runs/store.ts";
import { outcomeToEnvelope } from "../sandbox/envelope.ts";
import type { Dataset, RunLimits, RunOutcome, RunRequest } from "../sandbox/types.ts";
import { searchPrelude } from "./search-prelude.ts";

export const SPEC_READER_URL = entryUrl("specReader").href;

export interface SearchDeps {
  store: CodeRunStore;
  sandbox: { run(request: RunRequest): Promise<RunOutcome> };
  apis: ApiTarget[];
  /** The artifact's JSON text as stored (cheaper than serialising it again). */
  artifactText(target: ApiTarget): string;
  now?: () => number;
  limits?: Partial<RunLimits>;
}

export async function runSearch(deps: SearchDeps, request: { code: string; source: RunSource; limits?: Partial<RunLimits> }): Promise<Envelope> {
  const clock = (deps.now ?? Date.now)();
  const seed = randomInt(0, 2 ** 31);
  const run = deps.store.createRun({ source: request.source, tool: "search", policy: "read_only", program: request.code, clock, seed });
  const datasets: Record<string, Dataset> = {};
  for (const target of deps.apis) {
    datasets[target.name] = { key: target.artifact.hash, load: () => deps.artifactText(target), reader: SPEC_READER_URL };
  }
  const outcome = await deps.sandbox.run({
    code: request.code,
    prelude: searchPrelude(deps.apis.map((a) => a.name)),
    datasets,
    limits: { ...deps.limits, ...request.limits },
    clock,
    seed,
    onCall: async () => ({ ok: false, error: { name: "CallRejected", message: "search programs read specs only; use the execute tool to call APIs" } }),
  });
  const envelope = outcomeToEnvelope(run.id, outcome);
  deps.store.updateRun(run.id, {
    status: envelope.status === "completed" ? "completed" : "failed",
    failureReason: envelope.error?.reason ?? null,
    envelope,
    logs: envelope.logs,
  });
  return envelope;
}
