/**
 * Apply: after a person approved a plan (or its first k writes), the program
 * runs live from the top. Each write that would ask a person is compared with
 * the plan's writes not used yet, in the plan's order (calls a program starts
 * together, in a Promise.all, may reach the host in any order). It is sent as
 * write N of the plan only if
 *
 *   - N is within the writes the person approved, and unused;
 *   - it is the same operation of the same API;
 *   - its arguments equal the planned ones, except the parts the plan marked as
 *     coming from an earlier write's response, which must now hold that
 *     write's real value (the id the first creation really returned);
 *   - the planned request, rebuilt under the API's settings as they are now,
 *     fingerprints the same as the one the person saw (proxy/approval.ts).
 *
 * Anything else stops the run at that write and asks for it alone, saying how
 * it differs from the plan. Sending goes through the pipeline as for any
 * approved call: recorded before it is sent, never sent twice.
 */
import type { JsonValue } from "../../../shared/json.ts";
import type { PlanDependency, PlanWrite } from "../../../shared/runs.ts";
import { describeChanges, requestFingerprint } from "../proxy/approval.ts";
import { canonicalJson } from "../proxy/canonical-json.ts";
import { prepareCall, showRequest, type PlannedCallCheck, type PlanVerdict, type ProxyDeps } from "../proxy/pipeline.ts";
import { CallFailure, type CallAnswer } from "../proxy/types.ts";
import { walk } from "./forecast.ts";
import type { StoredPlan } from "./store.ts";

export class PlanApplier {
  readonly #stored: StoredPlan;
  readonly #deps: ProxyDeps;
  readonly #policy: "read_only" | "all";
  /** Write number → the response the program really got for it. */
  readonly #answers = new Map<number, JsonValue>();
  /** Call index → the write it was sent as (until its answer arrives). */
  readonly #byIndex = new Map<number, number>();
  /** Writes of the plan already sent (or replayed) in this run. */
  readonly #used = new Set<number>();

  constructor(stored: StoredPlan, deps: ProxyDeps, policy: "read_only" | "all") {
    this.#stored = stored;
    this.#deps = deps;
    this.#policy = policy;
  }

  /** A call of this run is write `write` of the plan (replayed from the record, or approved with the plan). */
  noteWrite(write: number, index: number): void {
    this.#byIndex.set(index, write);
    this.#used.add(write);
  }

  /** The answer of a call; kept when the call was a plan write, for the writes that depend on it. */
  answered(index: number, answer: CallAnswer): void {
    const write = this.#byIndex.get(index);
    if (write !== undefined && answer.ok) this.#answers.set(write, answer.value);
  }

  async verdict(check: PlannedCallCheck): Promise<PlanVerdict> {
    const { plan, approvedWrites = 0, decidedBy = "a person", decidedAt = new Date().toISOString() } = this.#stored;
    const op = `${check.prepared.operation.method.toUpperCase()} ${check.prepared.operation.path}`;
    if (check.prepared.target.config.approvals === "per-call") return { kind: "ask", changes: [`writes to ${check.guest.api} are approved one by one (the API's setting), even within a plan`] };
    const unused = plan.writes.filter((w) => !this.#used.has(w.write));
    const sameOperation = unused.filter((w) => w.api === check.guest.api && w.operationId === check.prepared.operation.id);
    let nearest: string[] | undefined;
    for (const entry of sameOperation) {
      const expected = this.#expectedArguments(entry);
      if ("missing" in expected) {
        nearest ??= [expected.missing];
        continue;
      }
      if (canonicalJson(expected.value) !== canonicalJson(check.guest.args)) {
        nearest ??= differences(expected.value, check.guest.args, entry.write);
        continue;
      }
      if (entry.write > approvedWrites) return { kind: "ask", changes: [`this is write ${entry.write} of the plan (${entry.operation}); the person approved its first ${approvedWrites}`] };
      const drift = await this.#settingsDrift(entry);
      if (drift) return { kind: "ask", changes: drift };
      if (this.#used.has(entry.write)) continue; // taken by a call that raced this one
      this.#used.add(entry.write);
      this.#byIndex.set(check.index, entry.write);
      return { kind: "send", write: entry.write, by: decidedBy, at: decidedAt };
    }
    if (nearest) return { kind: "ask", changes: nearest };
    const next = unused[0];
    if (!next) return { kind: "ask", changes: [`this write (${op}) goes beyond the plan, which had ${plan.writes.length} write${plan.writes.length === 1 ? "" : "s"}, all made`] };
    return { kind: "ask", changes: [`this write (${op} on ${check.guest.api}) is not in the plan; its next write was ${next.operation} on ${next.api}`] };
  }

  /** The planned arguments, with each part that came from an earlier write's forecast replaced by that write's real value. */
  #expectedArguments(entry: PlanWrite): { value: JsonValue } | { missing: string } {
    let value = structuredClone(entry.arguments);
    for (const dep of entry.dependsOn) {
      const real = valueAt(this.#answers.get(dep.from.write), dep.from.path.split("."));
      if (real === undefined || real === null || typeof real === "object") {
        return { missing: `write ${entry.write} uses ${dep.from.path} of write ${dep.from.write}'s response (${dep.from.operation}), which the real response does not have` };
      }
      value = replaceAt(value, dep.at ? dep.at.split(".") : [], dep, real);
    }
    return { value };
  }

  /** Whether the planned request would now be built differently (the base URL, credential or spec changed). */
  async #settingsDrift(entry: PlanWrite): Promise<string[] | undefined> {
    try {
      const target = this.#deps.target(entry.api);
      const header = target?.config.autoIdempotencyHeader?.toLowerCase();
      const key = header ? entry.request.headers[header] : undefined;
      const prepared = await prepareCall(this.#deps, { api: entry.api, op: entry.op, args: entry.arguments }, { policy: this.#policy, preApproved: true, ...(key ? { idempotencyKey: key } : {}) });
      const shown = showRequest(prepared, this.#deps.resolver);
      if (requestFingerprint(shown, prepared.target) === entry.requestFingerprint) return undefined;
      return describeChanges(entry.request, shown).map((change) => `since the plan was approved, ${change}`);
    } catch (err) {
      return [`the planned request can no longer be built: ${err instanceof CallFailure ? err.message : "an internal error"}`];
    }
  }
}

function valueAt(root: JsonValue | undefined, path: string[]): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = Array.isArray(current) ? current[Number(key)] : current[key];
  }
  return current;
}

function replaceAt(root: JsonValue, path: string[], dep: PlanDependency, real: string | number | boolean): JsonValue {
  if (path.length === 0) return dep.within && typeof root === "string" ? root.split(String(dep.forecast)).join(String(real)) : real;
  if (root === null || typeof root !== "object") return root;
  const [key, ...rest] = path as [string, ...string[]];
  if (Array.isArray(root)) return root.map((item, i) => (String(i) === key ? replaceAt(item, rest, dep, real) : item));
  return { ...root, [key]: replaceAt(root[key] ?? null, rest, dep, real) };
}

/** The leaves where the live arguments differ from the expected ones, in words (a few at most). */
function differences(expected: JsonValue, live: JsonValue, write: number): string[] {
  const leaves = (value: JsonValue) => {
    const out = new Map<string, string>();
    walk(value, [], (leaf, at) => out.set(at.join(".") || "(the arguments)", JSON.stringify(leaf) ?? "undefined"));
    return out;
  };
  const a = leaves(expected);
  const b = leaves(live);
  const changes: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(key) === b.get(key)) continue;
    if (!b.has(key)) changes.push(`${key} was ${a.get(key)} in the plan and is now missing`);
    else if (!a.has(key)) changes.push(`${key} is now ${b.get(key)}; the plan had no such argument`);
    else changes.push(`${key} was ${a.get(key)} in the plan and is now ${b.get(key)}`);
  }
  const shown = changes.slice(0, 8);
  if (changes.length > 8) shown.push(`and ${changes.length - 8} more differences`);
  return [`write ${write} differs from the plan: ${shown.join("; ")}`];
}
