/**
 * Operation ids become method names in programs (`apis.github.reposGetContent()`),
 * so each must be a unique JavaScript identifier that cannot shadow something
 * else on the API object. In document order, with three passes so a repaired
 * id never takes a name that the spec gave another operation verbatim:
 *
 * 1. an operationId that is already a usable identifier is kept;
 * 2. one that is not (`repos/get-content`) is camel-cased (`reposGetContent`),
 *    unless it only spells out the method and path (`GET_person-person_id-movie_credits`,
 *    as generators write them), which camel-cases into noise;
 * 3. such a one, and a missing, duplicated or unrepairable one, is named after
 *    its method and path the way a person would (`GET /person/{person_id}/movie_credits`
 *    → `getPersonMovieCredits`, `GET /pets/{petId}` → `getPetsById`).
 *
 * Every id that differs from the spec's operationId is reported with its pointer.
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
    if (spellsMethodAndPath(original, op)) return;
    const camel = camelCase(original);
    if (camel && isUsableOperationId(camel) && !taken.has(camel)) {
      ids[i] = camel;
      taken.add(camel);
      report.add("sanitized-operation-id", childPointer(op.pointer, "operationId"), `operationId ${JSON.stringify(original)} is not a JavaScript identifier; call it as ${camel}`);
    }
  });

  // Two operations whose readable names meet (`/a/{x}/b`, `/a/b`): the one with
  // parameters in the middle spells them out, so the other keeps the short name.
  const readable = ops.map((op, i) => (ids[i] === undefined ? derivedId(op.method, op.path) : ""));
  const wanted = new Map<string, number>();
  for (const name of readable) if (name) wanted.set(name, (wanted.get(name) ?? 0) + 1);
  const nextSuffix = new Map<string, number>();
  ops.forEach((op, i) => {
    if (ids[i] !== undefined) return;
    const short = readable[i]!;
    const full = fullDerivedId(op.method, op.path);
    const candidates = wanted.get(short)! > 1 && full !== short ? [full, short] : [short, full];
    const id = candidates.find((c) => !taken.has(c)) ?? unique(short, taken, nextSuffix);
    ids[i] = id;
    taken.add(id);
    const original = op.operationId;
    const at = childPointer(op.pointer, "operationId");
    if (original === undefined) {
      report.add("derived-operation-id", op.pointer, `the operation has no operationId; call it as ${id}`);
    } else if (firstUse.get(original) === i && spellsMethodAndPath(original, op)) {
      report.add("derived-operation-id", at, `operationId ${JSON.stringify(original)} only spells out its method and path; call it as ${id}`);
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

/**
 * The name a person would give `method path`: the literal segments in order,
 * parameters left out where a literal follows them, and trailing parameters
 * as `By…And…` without repeating the segment they follow.
 * `get /person/{person_id}/movie_credits` → `getPersonMovieCredits`;
 * `get /pets/{petId}` → `getPetsById`; `get /` → `getRoot`.
 */
export function derivedId(method: HttpMethod, path: string): string {
  const segments = path.split("/").filter(Boolean).map(parseSegment).filter((s) => s.words.length);
  let tail = segments.length;
  while (tail > 0 && segments[tail - 1]!.parameter) tail--;
  const literals = segments.slice(0, tail).filter((s) => !s.parameter).map((s) => pascal(s.words));
  const trailing = segments.slice(tail).map((s, i) => {
    const previous = (i === 0 ? segments[tail - 1] : undefined)?.words.at(-1);
    const words = previous !== undefined && s.words.length > 1 && sameWord(s.words[0]!, previous) ? s.words.slice(1) : s.words;
    return pascal(words);
  });
  const name = literals.join("") + (trailing.length ? `By${trailing.join("And")}` : "");
  return method + (name || "Root");
}

/** Every segment, parameters included (`getPetsByPetIdPhotos`): the fallback when two readable names meet. */
function fullDerivedId(method: HttpMethod, path: string): string {
  const segments = path.split("/").filter(Boolean).map(parseSegment).filter((s) => s.words.length);
  return method + (segments.map((s) => (s.parameter ? "By" : "") + pascal(s.words)).join("") || "Root");
}

/** Whether an operationId is just its method and path run together (`GET_pets-pet_id`): nothing a person chose. The path alone (`search/code`) may well be a chosen name. */
function spellsMethodAndPath(operationId: string, op: Pick<OperationKey, "method" | "path">): boolean {
  const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "");
  const id = squash(operationId);
  return id === squash(op.method + op.path);
}

function parseSegment(segment: string): { parameter: boolean; words: string[] } {
  const placeholder = /^\{(.+)\}$/.exec(segment);
  const text = placeholder ? placeholder[1]! : segment;
  // Split on separators and on case (`petId` → pet, Id; `HTTPStatus` → HTTP, Status).
  const words = text.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/).filter(Boolean);
  return { parameter: !!placeholder, words };
}

function pascal(words: string[]): string {
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

/** `pets` and `pet`, `categories` and `category`: a parameter that repeats the segment it follows. */
function sameWord(a: string, b: string): boolean {
  const singular = (w: string) => w.toLowerCase().replace(/ies$/, "y").replace(/s$/, "");
  return singular(a) === singular(b);
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
