/**
 * Step 1: which operation is this call? A concrete `METHOD /path` is matched
 * against the spec's path templates (literal segments beat parameters, so
 * `/pets/mine` wins over `/pets/{petId}`); an operation binding is looked up by
 * id. A miss is `CallRejected` naming the nearest operations, so the model can
 * correct itself in one step instead of guessing.
 */
import { RE2JS } from "re2js";
import type { Artifact, HttpMethod, Operation } from "../../../shared/artifact.ts";
import { CallFailure, type MatchedCall } from "./types.ts";

interface CompiledPath {
  operation: Operation;
  regex: PathMatcher;
  names: string[];
  /** Higher is more specific. */
  rank: number;
}

const compiled = new WeakMap<Artifact, Map<HttpMethod, CompiledPath[]>>();
const byId = new WeakMap<Artifact, Map<string, Operation>>();

function compile(artifact: Artifact): Map<HttpMethod, CompiledPath[]> {
  let table = compiled.get(artifact);
  if (table) return table;
  table = new Map();
  for (const operation of artifact.operations) {
    const names: string[] = [];
    const segments = operation.path.split("/").filter(Boolean);
    let literal = 0;
    const pattern = segments
      .map((segment) => {
        if (!segment.includes("{")) {
          literal++;
          return escapeRegex(segment);
        }
        return segment
          .split(/(\{[^}]+\})/)
          .map((part) => {
            const m = /^\{([^}]+)\}$/.exec(part);
            if (!m) return escapeRegex(part);
            names.push(m[1]!);
            return "([^/]+)";
          })
          .join("");
      })
      .join("/");
    const source = `^/${pattern}/?$`;
    // One parameter per segment matches in linear time on V8's engine; several in one segment (`/{a}{b}`, from a
    // hostile or odd spec) would backtrack polynomially on a long path, so those templates run on RE2.
    const crowded = segments.some((segment) => (segment.match(/\{[^}]+\}/g)?.length ?? 0) > 1);
    const entry: CompiledPath = { operation, regex: crowded ? re2Matcher(source) : new RegExp(source), names, rank: literal * 100 - names.length };
    const list = table.get(operation.method) ?? [];
    list.push(entry);
    table.set(operation.method, list);
  }
  for (const list of table.values()) list.sort((a, b) => b.rank - a.rank);
  compiled.set(artifact, table);
  return table;
}

/** What matching needs of a compiled template: `exec` giving the parameters' captures, or null. */
interface PathMatcher {
  exec(path: string): (string | undefined)[] | null;
}

function re2Matcher(source: string): PathMatcher {
  const re = RE2JS.compile(source);
  return {
    exec(path) {
      const m = re.matcher(path);
      if (!m.matches()) return null;
      return Array.from({ length: m.groupCount() + 1 }, (_, i) => m.group(i) ?? undefined);
    },
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Matches a concrete path (no query string) to an operation. `basePath` is the base URL's path prefix. */
export function matchPath(artifact: Artifact, method: HttpMethod, path: string, basePath = ""): MatchedCall {
  const found = tryMatch(artifact, method, path);
  if (found) return found;
  // Models often include the server's path prefix (`/v1/pets`); accept it once.
  const prefix = basePath.replace(/\/+$/, "");
  if (prefix && path.startsWith(`${prefix}/`)) {
    const stripped = tryMatch(artifact, method, path.slice(prefix.length));
    if (stripped) return stripped;
  }
  const other = HTTP_METHODS_FOR_HINT.filter((m) => m !== method && tryMatch(artifact, m, path));
  const hint = other.length ? ` The path exists for ${other.map((m) => m.toUpperCase()).join(", ")}.` : "";
  throw new CallFailure(
    "CallRejected",
    `No operation matches ${method.toUpperCase()} ${path}.${hint} Nearest: ${nearestOperations(artifact, method, path).join("; ")}.`,
  );
}

const HTTP_METHODS_FOR_HINT: HttpMethod[] = ["get", "post", "put", "patch", "delete", "head", "options", "trace"];

function tryMatch(artifact: Artifact, method: HttpMethod, path: string): MatchedCall | undefined {
  for (const entry of compile(artifact).get(method) ?? []) {
    const m = entry.regex.exec(path);
    if (!m) continue;
    const pathParams: Record<string, string> = {};
    entry.names.forEach((name, i) => {
      pathParams[name] = safeDecode(m[i + 1]!);
    });
    return { operation: entry.operation, pathParams };
  }
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function operationById(artifact: Artifact, id: string): Operation {
  let table = byId.get(artifact);
  if (!table) {
    table = new Map(artifact.operations.map((op) => [op.id, op]));
    byId.set(artifact, table);
  }
  const operation = table.get(id);
  if (!operation) {
    throw new CallFailure("CallRejected", `No operation ${id}. Nearest: ${nearestById(artifact, id).join("; ")}.`);
  }
  return operation;
}

export function describeOperation(op: Operation): string {
  return `${op.method.toUpperCase()} ${op.path} (${op.id})`;
}

/** The 5 operations closest to a method + path, by segment-aware edit distance. */
export function nearestOperations(artifact: Artifact, method: HttpMethod, path: string, count = 5): string[] {
  const wanted = normalisePath(path);
  return artifact.operations
    .map((op) => ({ op, score: editDistance(wanted, normalisePath(op.path)) + (op.method === method ? 0 : 3) }))
    .sort((a, b) => a.score - b.score)
    .slice(0, count)
    .map(({ op }) => describeOperation(op));
}

function nearestById(artifact: Artifact, id: string, count = 5): string[] {
  const wanted = id.toLowerCase();
  return artifact.operations
    .map((op) => ({ op, score: editDistance(wanted, op.id.toLowerCase()) - (op.id.toLowerCase().includes(wanted) ? 5 : 0) }))
    .sort((a, b) => a.score - b.score)
    .slice(0, count)
    .map(({ op }) => describeOperation(op));
}

/** Treats every template parameter and every numeric segment alike, so `/pets/42` is near `/pets/{id}`. */
function normalisePath(path: string): string {
  return path
    .split("?")[0]!
    .split("/")
    .map((s) => (/^\{.*\}$/.test(s) || /^[0-9a-f-]{1,40}$/i.test(s) && /\d/.test(s) ? "*" : s.toLowerCase()))
    .join("/");
}

/** Levenshtein distance, bounded to keep a 1,000-operation scan cheap. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const limit = 60;
  a = a.slice(0, limit);
  b = b.slice(0, limit);
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
