/**
 * Stage 2: puts a ceiling on what the later stages walk. They recurse over the
 * document, so a document nested ten thousand levels deep, a YAML alias that
 * contains itself (a cycle in the parsed value) or one so large that walking
 * it takes minutes would crash or hang them. Deep parts and cycles are cut out
 * and reported; an oversized document is refused.
 */
import type { JsonValue } from "../../../shared/json.ts";
import type { IngestError, RepairReport } from "./report.ts";
import { childPointer } from "./pointer.ts";

export interface Bounds {
  /** Nesting depth past which a value is cut (real specs stay under 40). */
  maxDepth: number;
  /** Values in the whole document (GitHub's 13 MB spec has about 260,000). */
  maxNodes: number;
}

export const DEFAULT_BOUNDS: Bounds = { maxDepth: 200, maxNodes: 5_000_000 };

type Container = JsonValue[] | { [key: string]: JsonValue };
interface Frame {
  container: Container;
  keys: string[];
  next: number;
  pointer: string;
}

/**
 * Cuts (in place) every value deeper than `maxDepth` and every reference back
 * to an enclosing value; returns an error when the document is too large.
 * `mayShare` is false for JSON, whose values are never shared, to skip the
 * cycle bookkeeping on the fast path.
 */
export function enforceBounds(document: JsonValue, bounds: Bounds, mayShare: boolean, report: RepairReport): IngestError | undefined {
  if (document === null || typeof document !== "object") return undefined;
  const open = new Set<object>();
  const stack: Frame[] = [frameFor(document, "")];
  if (mayShare) open.add(document);
  let nodes = 1;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.keys.length) {
      stack.pop();
      if (mayShare) open.delete(frame.container);
      continue;
    }
    const key = frame.keys[frame.next++]!;
    const value = (frame.container as Record<string, JsonValue>)[key];
    nodes += 1;
    if (nodes > bounds.maxNodes) {
      return { code: "too-large", pointer: "", message: `the document has more than ${bounds.maxNodes.toLocaleString("en")} values; refusing to read it` };
    }
    if (value === null || typeof value !== "object") continue;
    const pointer = childPointer(frame.pointer, key);
    if (mayShare && open.has(value)) {
      cut(frame.container, key);
      report.add("circular-alias", pointer, "this value contains itself (a YAML alias to an enclosing anchor); it was replaced by null");
      continue;
    }
    if (stack.length >= bounds.maxDepth) {
      cut(frame.container, key);
      report.add("too-deep", pointer, `nested deeper than ${bounds.maxDepth} levels; this part was dropped`);
      continue;
    }
    if (mayShare) open.add(value);
    stack.push(frameFor(value, pointer));
  }
  return undefined;
}

function frameFor(container: Container, pointer: string): Frame {
  return { container, keys: Array.isArray(container) ? container.map((_, i) => String(i)) : Object.keys(container), next: 0, pointer };
}

function cut(container: Container, key: string): void {
  (container as Record<string, JsonValue>)[key] = null;
}
