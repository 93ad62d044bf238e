/**
 * `$ref`s to everything but schemas (parameters, request bodies, responses,
 * headers, examples, path items) are resolved at ingest, so the proxy and the
 * UI never chase a pointer. A chain of refs is followed to its end with a
 * seen-set, so `A → B → A` is reported instead of looping; external files and
 * URLs are reported, never fetched. Each component resolved through a ref is
 * normalised once and shared, so GitHub's `owner` parameter, used by hundreds
 * of operations, is checked (and any repair reported) once.
 */
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { isObject } from "./json-guards.ts";
import { parseRef, valueAt } from "./pointer.ts";
import type { RepairReport } from "./report.ts";

/** A ref chain longer than this is a mistake or an attack. */
const MAX_REF_HOPS = 64;

export interface Resolved {
  value: JsonValue;
  /** Where the value really is: the ref's target, or where it was found. */
  pointer: string;
  viaRef: boolean;
}

export class RefResolver {
  private readonly doc: JsonObject;
  private readonly report: RepairReport;
  private readonly shared = new Map<string, unknown>();

  constructor(doc: JsonObject, report: RepairReport) {
    this.doc = doc;
    this.report = report;
  }

  /** Follows `node`'s `$ref` chain, if any, to the value it names; reports and returns undefined when it cannot. */
  follow(node: JsonValue | undefined, pointer: string, what: string): Resolved | undefined {
    let current = node;
    let at = pointer;
    const seen = new Set<string>();
    for (let hops = 0; ; hops++) {
      if (!isObject(current) || typeof current.$ref !== "string") return current === undefined ? undefined : { value: current, pointer: at, viaRef: hops > 0 };
      const ref = current.$ref;
      if (hops >= MAX_REF_HOPS) {
        this.report.add("unresolved-ref", pointer, `${what}: a chain of more than ${MAX_REF_HOPS} $refs; left out`);
        return undefined;
      }
      const parsed = parseRef(ref);
      if (parsed.kind === "external") {
        this.report.add("external-ref", at, `${what} refers to ${JSON.stringify(ref)}, outside this document; external files and URLs are never fetched, so it was left out`);
        return undefined;
      }
      if (parsed.kind === "invalid") {
        this.report.add("unresolved-ref", at, `${what}: ${parsed.reason}; left out`);
        return undefined;
      }
      if (seen.has(parsed.pointer) || parsed.pointer === at) {
        this.report.add("circular-ref", at, `${what} refers to ${JSON.stringify(ref)}, which leads back to itself; left out`);
        return undefined;
      }
      seen.add(parsed.pointer);
      const target = valueAt(this.doc, parsed.tokens);
      if (target === undefined) {
        this.report.add("unresolved-ref", at, `${what} refers to ${JSON.stringify(ref)}, which does not exist in the document; left out`);
        return undefined;
      }
      current = target;
      at = parsed.pointer;
    }
  }

  /**
   * Resolves `node` and normalises what it names with `build`; a component
   * reached through a ref is built once (per `kind`) and the result shared.
   */
  resolveShared<T>(node: JsonValue | undefined, pointer: string, what: string, kind: string, build: (value: JsonValue, pointer: string) => T | undefined): T | undefined {
    const resolved = this.follow(node, pointer, what);
    if (!resolved) return undefined;
    if (!resolved.viaRef) return build(resolved.value, resolved.pointer);
    const key = `${kind}\u0000${resolved.pointer}`;
    if (this.shared.has(key)) return this.shared.get(key) as T | undefined;
    // Mark before building: a component whose build reaches itself again gets undefined, not a loop.
    this.shared.set(key, undefined);
    const built = build(resolved.value, resolved.pointer);
    this.shared.set(key, built);
    return built;
  }
}
