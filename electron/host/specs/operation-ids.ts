/**
 * Operation ids become method names in programs (`apis.github.reposGetContent()`),
 * so each must be a unique JavaScript identifier that cannot shadow something
 * else on the API object. In document order, with three passes so a repaired
 * id never takes a name that the spec gave another operation verbatim:
 *
 * 1. an operationId that is already a usable identifier is kept;
 * 2. one that is not (`repos/get-content`) is camel-cased (`reposGetContent`);
 * 3. a missing, duplicated or unrepairable one is derived from method and path
 *    (`GET /pets/{petId}` → `getPetsByPetId`).
 *
 * Every id that differs from the spec's operationId is reported.
 */
import type { HttpMethod } from "../../../shared/artifact.ts";
import { childPointer } from "./pointer.ts";
import type { RepairReport } from "./report.ts";

export interface OperationKey {
  operationId?: string;
  method: HttpMethod;
  path: string;
  /** Where the operation is in the document, for the report. */
  pointer: string;
}

/** Names that would break or shadow something on `apis.<name>`: JavaScript keywords, `request`, `then` (an object with `then` is awaited as a promise) and Object.prototype's members. */
const RESERVED = new Set([
  "request", "then", "__proto__", "constructor", "prototype", "toString", "toLocaleString", "valueOf",
  "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
  "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum", "export",
  "extends", "false", "finally", "for", "function", "if", "implements", "import", "in", "instanceof", "interface", "let", "new", "null",
  "package", "private", "protected", "public", "return", "static", "super", "switch", "this", "throw", "true", "try", "typeof", "var",
  "void", "while", "with", "yield", "arguments", "eval",
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function isUsableOperationId(id: string): boolean {
  return IDENTIFIER.test(id) && !RESERVED.has(id);
}

export function assignOperationIds(ops: readonly OperationKey[], report: RepairReport): string[] {
  const ids: (string | undefined)[] = ops.map(() => undefined);
  const taken = new Set<string>();
  const firstUse = new Map<string, number>();

  ops.forEach((op, i) => {
    const original = op.operationId;
    if (original === undefined) return;
    if (firstUse.has(original)) return;
    firstUse.set(original, i);
    if (isUsableOperationId(original) && !taken.has(original)) {
      ids[i] = original;
      taken.add(original);
    }
  });

  ops.forEach((op, i) => {
    const original = op.operationId;
    if (ids[i] !== undefined || original === undefined || firstUse.get(original) !== i) return;
    const camel = camelCase(original);
    if (camel && isUsableOperationId(camel) && !taken.has(camel)) {
      ids[i] = camel;
      taken.add(camel);
      report.add("sanitized-operation-id", childPointer(op.pointer, "operationId"), `operationId ${JSON.stringify(original)} is not a JavaScript identifier; call it as ${camel}`);
    }
  });

  const nextSuffix = new Map<string, number>();
  ops.forEach((op, i) => {
    if (ids[i] !== undefined) return;
    const id = unique(derivedId(op.method, op.path), taken, nextSuffix);
    ids[i] = id;
    taken.add(id);
    const original = op.operationId;
    const at = childPointer(op.pointer, "operationId");
    if (original === undefined) {
      report.add("derived-operation-id", op.pointer, `the operation has no operationId; call it as ${id}`);
    } else if (firstUse.get(original) !== i) {
      const first = ops[firstUse.get(original)!]!;
      report.add("duplicate-operation-id", at, `operationId ${JSON.stringify(original)} is already used by ${first.method.toUpperCase()} ${first.path}; call this one as ${id}`);
    } else {
      report.add("derived-operation-id", at, `operationId ${JSON.stringify(original)} cannot be a method name (reserved, or taken once made an identifier); call it as ${id}`);
    }
  });
  return ids as string[];
}

/** `repos/get-content` → `reposGetContent`; `2fa.enable` → `_2faEnable`. */
function camelCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9_$]+/).filter(Boolean);
  const joined = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** `get /pets/{petId}/photos` → `getPetsByPetIdPhotos`; `get /` → `getRoot`. */
export function derivedId(method: HttpMethod, path: string): string {
  const parts: string[] = [];
  for (const segment of path.split("/").filter(Boolean)) {
    const placeholder = /^\{(.+)\}$/.exec(segment);
    const words = (placeholder ? placeholder[1]! : segment).split(/[^A-Za-z0-9]+/).filter(Boolean);
    if (words.length === 0) continue;
    parts.push((placeholder ? "By" : "") + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(""));
  }
  return method + (parts.join("") || "Root");
}

/** The next free `base`, `base_2`, `base_3`...; remembers where it stopped so many collisions stay linear. */
function unique(base: string, taken: Set<string>, next: Map<string, number>): string {
  if (!taken.has(base)) return base;
  for (let i = next.get(base) ?? 2; ; i++) {
    if (!taken.has(`${base}_${i}`)) {
      next.set(base, i + 1);
      return `${base}_${i}`;
    }
  }
}
