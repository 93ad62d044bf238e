/**
 * The APIs a run's program sees, in whichever process runs it. A run records
 * the definition of every API it uses (spec hash and the settings that shape
 * a request), so that approve, deny, replay and cancel work from any face:
 *
 * - a one-off API (`--spec` on the command line) exists only in the process
 *   that was given it; any other process puts it back from the recorded
 *   definition and the artifacts cache, still one-off (no vault access, no
 *   allow rules), and it takes precedence over a registered API that has
 *   taken its name since;
 * - a registered API is used as it is now: when it changed since the run
 *   last used it, the run's logs say what changed, and the approval's
 *   fingerprint (proxy/approval.ts) decides whether an approved call asks
 *   again;
 * - a registered API the run used that has been removed since stays callable
 *   by name (its saved answers still replay) but every live call to it is
 *   refused and recorded, saying so.
 */
import type { Artifact } from "../../../shared/artifact.ts";
import type { RunApiDefinition } from "../../../shared/runs.ts";
import { canonicalJson } from "../proxy/canonical-json.ts";
import type { ApiTarget } from "../proxy/types.ts";

/** What a run's world is built from: this process's APIs and the artifacts cache. */
export interface ApiSource {
  /** The APIs of this process now: the registered ones, and this command's one-off APIs. */
  current(): ApiTarget[];
  /** Why a registered API cannot be used now (its registry entry is damaged), if it is known. */
  problem(name: string): string | undefined;
  /** A parsed spec from `<dataDir>/artifacts/`, by the hash of its text. */
  artifact(specHash: string): { ok: true; artifact: Artifact } | { ok: false; message: string };
}

export interface RunWorld {
  /** The APIs the program gets as `apis.<name>` (and `context.<name>`). */
  readonly apis: ApiTarget[];
  /** The API a live call goes to, or undefined. */
  target(name: string): ApiTarget | undefined;
  /** Why a live call to this API is refused (it is gone since the run used it), or undefined. */
  unavailable(name: string): string | undefined;
  /** APIs the run used whose spec is gone: callable by any operation name (each call refused, or replayed from the record). */
  readonly opaque: string[];
  /** For the run's logs: the APIs that changed since the run last used them, in words. */
  readonly notes: string[];
}

export function definitionOf(target: ApiTarget): RunApiDefinition {
  return {
    name: target.name,
    specHash: target.artifact.hash,
    oneOff: target.oneOff === true,
    baseUrl: target.baseUrl,
    ...(target.boundBaseUrl ? { boundBaseUrl: target.boundBaseUrl } : {}),
    config: target.config,
  };
}

/** The world of a run that recorded `recorded` (none for a new run), in this process; `whose` names that run in notes. */
export function runWorld(recorded: RunApiDefinition[], source: ApiSource, whose = "this run"): RunWorld {
  const targets = new Map(source.current().map((t) => [t.name, t]));
  const gone = new Map<string, string>();
  const notes: string[] = [];
  const callableOnlyByName = new Map<string, ApiTarget>();
  const opaque: string[] = [];

  for (const definition of recorded) {
    const now = targets.get(definition.name);
    if (definition.oneOff) {
      const loaded = source.artifact(definition.specHash);
      if (loaded.ok) targets.set(definition.name, restore(definition, loaded.artifact));
      else {
        targets.delete(definition.name);
        const why = loaded.message.replace(/; add the API again$/, "");
        gone.set(definition.name, `the one-off API ${definition.name} (given with --spec) that this run used cannot be put back (${why}); run the program again with --spec ${definition.name}=<spec>`);
        opaque.push(definition.name);
      }
      continue;
    }
    if (!now || now.oneOff) {
      // Removed since (or only a one-off of this command has the name now, which may not stand in for it).
      const why = source.problem(definition.name);
      const reason = why ? `cannot be used now (${why})` : "has been removed since";
      gone.set(definition.name, `API ${definition.name}, which this run used, ${reason} (register it again with workbench api add ${definition.name} to continue the run)`);
      const loaded = source.artifact(definition.specHash);
      if (loaded.ok) callableOnlyByName.set(definition.name, restore(definition, loaded.artifact));
      else opaque.push(definition.name);
      targets.delete(definition.name);
      continue;
    }
    const changes = describeApiChanges(definition, definitionOf(now));
    if (changes.length) notes.push(`workbench: API ${definition.name} changed since ${whose} last used it: ${changes.join("; ")}. Calls are made with its settings as they are now; an approved call whose request changed asks again.`);
  }

  const apis = [...targets.values(), ...callableOnlyByName.values()];
  return {
    apis,
    target: (name) => targets.get(name),
    unavailable: (name) => gone.get(name),
    opaque,
    notes,
  };
}

function restore(definition: RunApiDefinition, artifact: Artifact): ApiTarget {
  return {
    name: definition.name,
    artifact,
    config: definition.config,
    baseUrl: definition.baseUrl,
    ...(definition.boundBaseUrl ? { boundBaseUrl: definition.boundBaseUrl } : {}),
    ...(definition.oneOff ? { oneOff: true } : {}),
  };
}

/** What differs between two definitions of one API, in words (nothing secret: credentials are references). */
export function describeApiChanges(before: RunApiDefinition, after: RunApiDefinition): string[] {
  const changes: string[] = [];
  if (before.specHash !== after.specHash) changes.push("its spec changed");
  // The demo API's server gets a new port in each process: its stable name is what counts.
  const where = (d: RunApiDefinition) => d.boundBaseUrl ?? d.baseUrl;
  if (where(before) !== where(after)) changes.push(`the base URL changed from ${where(before)} to ${where(after)}`);
  const a = before.config;
  const b = after.config;
  const same = (x: unknown, y: unknown) => canonicalJson(x ?? null) === canonicalJson(y ?? null);
  if (!same(a.auth, b.auth)) changes.push("its authentication (scheme or credential reference) changed");
  if (!same(a.passthroughHeaders, b.passthroughHeaders) || !same(a.autoIdempotencyHeader, b.autoIdempotencyHeader) || !same(a.responseHeaders, b.responseHeaders)) {
    changes.push("its header settings changed");
  }
  if (a.validate !== b.validate) changes.push(`validation changed from ${a.validate} to ${b.validate}`);
  if (a.timeoutMs !== b.timeoutMs) changes.push(`the timeout changed from ${a.timeoutMs} ms to ${b.timeoutMs} ms`);
  if (a.maxResponseBytes !== b.maxResponseBytes) changes.push(`the response size limit changed from ${a.maxResponseBytes} to ${b.maxResponseBytes} bytes`);
  if (!same(a.sandboxGlobals, b.sandboxGlobals)) changes.push(`its context values (context.${before.name}) changed`);
  if (before.oneOff !== after.oneOff) changes.push(after.oneOff ? "it is now a one-off API" : "it is now registered");
  return changes;
}
