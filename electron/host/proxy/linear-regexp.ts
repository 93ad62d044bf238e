/**
 * The regular-expression engine for patterns that come from specs (`pattern`,
 * `patternProperties`): RE2 (the pure-JS port `re2js`), which matches in time
 * linear in the input. V8's backtracking engine takes exponential time on
 * patterns like `^(a+)+$`, and a spec is untrusted input: one such pattern and
 * a 30-character argument would hold the host's main thread for a minute,
 * stopping every other run and client. See docs/security.md, "Patterns".
 *
 * RE2 has no lookaround and no backreferences. A spec pattern that uses them
 * (or that RE2 cannot parse) is not checked at all, and the call says so in the
 * run's notes: the upstream still validates its own input, and an unchecked
 * pattern is better than a frozen host.
 */
import { RE2JS } from "re2js";

export interface LinearRegExp {
  test(text: string): boolean;
  /** ajv caches compiled patterns by `toString()`: it must name the pattern, or every pattern would share one entry. */
  toString(): string;
}

/** Patterns RE2 refused since the last `takeUncheckedPatterns()`; compilation is synchronous, so a caller brackets one compile. */
let refused: string[] = [];

/** ajv's `code.regExp` engine: `(pattern, flags) => {test}`. */
export const linearRegExpEngine = Object.assign(
  (pattern: string, _flags: string): LinearRegExp => {
    const toString = () => `/${pattern}/${_flags}`;
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(toRe2Syntax(pattern));
    } catch {
      refused.push(pattern);
      return { test: () => true, toString };
    }
    return { test: (text: string) => compiled.matcher(text).find(), toString };
  },
  { code: "linearRegExp" },
);

/** The spec patterns the engine could not compile (and so will not check) since the last call. */
export function takeUncheckedPatterns(): string[] {
  const taken = refused;
  refused = [];
  return taken;
}

/**
 * ECMAScript escapes RE2 spells differently: `\uXXXX` and `\u{X...}` become
 * `\x{...}`. Escaped backslashes are skipped, so `\\u0041` stays a backslash
 * and the letters `u0041`.
 */
export function toRe2Syntax(pattern: string): string {
  if (!pattern.includes("\\u")) return pattern;
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char !== "\\") {
      out += char;
      continue;
    }
    const next = pattern[i + 1];
    if (next === "u") {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i + 2));
      const plain = /^[0-9a-fA-F]{4}/.exec(pattern.slice(i + 2));
      if (braced) {
        out += `\\x{${braced[1]}}`;
        i += 1 + braced[0].length;
        continue;
      }
      if (plain) {
        out += `\\x{${plain[0]}}`;
        i += 1 + plain[0].length;
        continue;
      }
    }
    out += char + (next ?? "");
    i++;
  }
  return out;
}
