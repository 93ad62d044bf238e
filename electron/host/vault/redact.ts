/**
 * Step 7 of the proxy: every secret value (vault fields, and credentials the
 * proxy obtains at runtime such as OAuth2 access tokens) is replaced by
 * `⟦hidden:label⟧` in responses, logs, errors and stored records, in the forms
 * it travels in (see encodings.ts). One combined regular expression scans a
 * text once however many secrets there are.
 *
 * Secrets shorter than MIN_SECRET_LENGTH are ignored: hiding every "a" or
 * "123" in a response would shred it while protecting nothing, and the vault
 * refuses to store such values, so only a runtime credential could be that
 * short.
 */
import type { JsonValue } from "../../../shared/json.ts";
import { base64Patterns, textualPattern } from "./encodings.ts";

export const MIN_SECRET_LENGTH = 4;
export const REDACTION_FAILED = "⟦hidden:redaction-failed⟧";

export interface RedactionSecret {
  /** How the secret is named in its place: `github/token`, `oauth2:github`. */
  label: string;
  value: string;
}

export function hiddenMarker(label: string): string {
  return `⟦hidden:${label}⟧`;
}

export class Redactor {
  /** value → label; the first label given for a value wins. */
  readonly #labels = new Map<string, string>();
  /** The everyday matcher, and one that also finds `\u`-escaped letters and digits (for texts that contain `\u`). */
  #matchers: [Matcher | undefined, Matcher | undefined] = [undefined, undefined];

  constructor(secrets: Iterable<RedactionSecret> = []) {
    for (const { label, value } of secrets) this.add(label, value);
  }

  /** Adds a secret learnt at runtime (an OAuth2 access token, `user:pass` of a Basic header). */
  add(label: string, value: string): void {
    if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || this.#labels.has(value)) return;
    this.#labels.set(value, String(label));
    this.#matchers = [undefined, undefined];
  }

  get size(): number {
    return this.#labels.size;
  }

  /** The text with every secret hidden. Never throws; on an internal failure the whole text is hidden. */
  redact(text: string): string {
    try {
      return this.#redactText(String(text));
    } catch {
      return REDACTION_FAILED;
    }
  }

  /**
   * The JSON value with secrets hidden in every string, keys included. Copy on
   * write: what holds no secret is returned as the very same object, so
   * `redactJson(v) === v` says "nothing to hide". Any depth. Never throws; on an
   * internal failure the whole value is hidden.
   */
  redactJson(value: JsonValue): JsonValue {
    if (this.#labels.size === 0) return value;
    try {
      return this.#redactValue(value);
    } catch {
      return REDACTION_FAILED;
    }
  }

  /**
   * Walks with an explicit stack, not recursion: a program can return (or log,
   * or pass) a value nested thousands deep, and that must be redacted like any
   * other, not fail and be hidden whole.
   */
  #redactValue(root: JsonValue): JsonValue {
    if (typeof root === "string") return this.#redactText(root);
    if (root === null || typeof root !== "object") return root;
    interface Frame {
      node: JsonValue[] | { [key: string]: JsonValue };
      keys: string[] | undefined;
      index: number;
      /** Cleaned entries so far: [key (or index), value]. */
      out: [string, JsonValue][];
      changed: boolean;
    }
    const open = (node: JsonValue[] | { [key: string]: JsonValue }): Frame => ({ node, keys: Array.isArray(node) ? undefined : Object.keys(node), index: 0, out: [], changed: false });
    const stack: Frame[] = [open(root)];
    const onPath = new Set<object>([root]);
    let finished: JsonValue = root;
    while (stack.length) {
      const frame = stack[stack.length - 1]!;
      const length = frame.keys ? frame.keys.length : (frame.node as JsonValue[]).length;
      if (frame.index < length) {
        const key = frame.keys ? frame.keys[frame.index]! : String(frame.index);
        const item = frame.keys ? (frame.node as { [key: string]: JsonValue })[key]! : (frame.node as JsonValue[])[frame.index]!;
        if (item !== null && typeof item === "object") {
          if (onPath.has(item)) throw new Error("a cycle: not JSON");
          onPath.add(item);
          stack.push(open(item));
          continue; // the child's result is delivered below, when it finishes
        }
        const cleanKey = frame.keys ? this.#redactText(key) : key;
        const cleanItem = typeof item === "string" ? this.#redactText(item) : item;
        if (cleanKey !== key || cleanItem !== item) frame.changed = true;
        frame.out.push([cleanKey, cleanItem]);
        frame.index++;
        continue;
      }
      stack.pop();
      onPath.delete(frame.node);
      finished = frame.changed ? rebuild(frame.node, frame.out) : frame.node;
      const parent = stack[stack.length - 1];
      if (parent) {
        const key = parent.keys ? parent.keys[parent.index]! : String(parent.index);
        const child = parent.keys ? (parent.node as { [key: string]: JsonValue })[key]! : (parent.node as JsonValue[])[parent.index]!;
        const cleanKey = parent.keys ? this.#redactText(key) : key;
        if (cleanKey !== key || finished !== child) parent.changed = true;
        parent.out.push([cleanKey, finished]);
        parent.index++;
      }
    }
    return finished;
  }

  #redactText(text: string): string {
    if (this.#labels.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
    const { regex, labels } = this.#compiled(text.includes("\\u"));
    regex.lastIndex = 0;
    let match = regex.exec(text);
    if (!match) return text;
    const parts: string[] = [];
    let copied = 0;
    while (match) {
      const start = match.index;
      let end = start + match[0].length;
      let best = match;
      // Secrets can overlap (one's tail is another's head): widen over every
      // match starting inside this one, so no part of either is left showing.
      regex.lastIndex = start + 1;
      let next = regex.exec(text);
      while (next && next.index < end) {
        end = Math.max(end, next.index + next[0].length);
        if (next[0].length > best[0].length) best = next;
        regex.lastIndex = next.index + 1;
        next = regex.exec(text);
      }
      parts.push(text.slice(copied, start), hiddenMarker(labelOf(best, labels)));
      copied = end;
      match = next;
    }
    parts.push(text.slice(copied));
    return parts.join("");
  }

  #compiled(unicodeEscapes: boolean): Matcher {
    const slot = unicodeEscapes ? 1 : 0;
    const cached = this.#matchers[slot];
    if (cached) return cached;
    // Longest first: where two secrets match at the same place, the longer one wins.
    const values = [...this.#labels.keys()].sort((a, b) => b.length - a.length);
    const groups = values.map((value) => `(${[textualPattern(value, unicodeEscapes), ...base64Patterns(value)].join("|")})`);
    const matcher = { regex: new RegExp(groups.join("|"), "g"), labels: values.map((value) => this.#labels.get(value)!) };
    this.#matchers[slot] = matcher;
    return matcher;
  }
}

interface Matcher {
  regex: RegExp;
  labels: string[];
}

/** A copy of an array or object with its cleaned entries. */
function rebuild(node: JsonValue[] | { [key: string]: JsonValue }, entries: [string, JsonValue][]): JsonValue {
  if (Array.isArray(node)) return entries.map(([, value]) => value);
  const out: { [key: string]: JsonValue } = {};
  // defineProperty: a "__proto__" key stays an own property instead of changing the prototype.
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

function labelOf(match: RegExpExecArray, labels: string[]): string {
  for (let group = 1; group < match.length; group++) {
    if (match[group] !== undefined) return labels[group - 1]!;
  }
  return "secret";
}
