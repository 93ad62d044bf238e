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
   * `redactJson(v) === v` says "nothing to hide". Never throws; on an internal
   * failure (a cycle, nesting deeper than the stack) the whole value is hidden.
   */
  redactJson(value: JsonValue): JsonValue {
    if (this.#labels.size === 0) return value;
    try {
      return this.#redactValue(value);
    } catch {
      return REDACTION_FAILED;
    }
  }

  #redactValue(value: JsonValue): JsonValue {
    if (typeof value === "string") return this.#redactText(value);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      let out: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i]!;
        const clean = this.#redactValue(item);
        if (clean !== item) out ??= value.slice(0, i);
        out?.push(clean);
      }
      return out ?? value;
    }
    const entries = Object.entries(value);
    let changed = false;
    const cleaned = entries.map(([key, item]) => {
      const cleanKey = this.#redactText(key);
      const cleanItem = this.#redactValue(item);
      if (cleanKey !== key || cleanItem !== item) changed = true;
      return [cleanKey, cleanItem] as const;
    });
    if (!changed) return value;
    const out: { [key: string]: JsonValue } = {};
    // defineProperty: a "__proto__" key stays an own property instead of changing the prototype.
    for (const [key, item] of cleaned) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    return out;
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

function labelOf(match: RegExpExecArray, labels: string[]): string {
  for (let group = 1; group < match.length; group++) {
    if (match[group] !== undefined) return labels[group - 1]!;
  }
  return "secret";
}
