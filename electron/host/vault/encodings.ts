/**
 * Regular-expression sources for the forms a secret travels in, so the
 * redactor can hide it wherever it ends up:
 *
 * - as text: raw, percent-encoded (query strings, form bodies: `%2F` or `%2f`,
 *   space as `+`), JSON-escaped (`\"`, `\/`, `\u00e9`, also doubly escaped
 *   JSON-in-JSON), and any mix of these, one pattern per secret;
 * - as base64 and base64url, standalone or inside a larger encoded blob (a
 *   `Basic` header, a base64 body). Inside a blob the secret can start at any
 *   of three byte offsets; at each, the characters that mix secret bits with a
 *   neighbour's bits become a character class of every possible neighbour, so
 *   no bit of the secret is left showing and nothing around it is eaten.
 */

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Raw, percent-encoded and JSON-escaped forms of `value` (and their mixes).
 * With `unicodeEscapes`, letters and digits may also be `\u`-escaped (`\u0041`,
 * or `\\u0041` inside JSON-in-JSON), which an upstream may send to slip a
 * secret past a scan of the text it wrote. That form costs the scan its fast
 * first-character search, so the redactor uses it only on texts that contain `\u`.
 */
export function textualPattern(value: string, unicodeEscapes = false): string {
  let out = "";
  for (const char of value) out += charPattern(char, unicodeEscapes);
  return out;
}

/** base64 and base64url forms of `value` at each of the three byte alignments. */
export function base64Patterns(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const patterns: string[] = [];
  for (const alignment of [0, 1, 2]) {
    const standard = alignedBase64(bytes, alignment);
    patterns.push(render(standard, "+/"), render(standard, "-_"));
  }
  return patterns;
}

interface AlignedBase64 {
  /** Options for the first character when it mixes in a neighbour's bits. */
  lead?: string;
  fixed: string;
  /** Options for the last character when it mixes in a neighbour's bits. */
  tail?: string;
}

/**
 * Encodes the secret preceded by `alignment` zero bytes and padded with zero
 * bytes to whole 3-byte groups, keeps the characters that depend only on the
 * secret, and turns the boundary characters that mix in neighbour bits into
 * sets of every value those unknown bits allow.
 */
function alignedBase64(bytes: Buffer, alignment: number): AlignedBase64 {
  const total = alignment + bytes.length;
  const padding = (3 - (total % 3)) % 3;
  const encoded = Buffer.concat([Buffer.alloc(alignment), bytes, Buffer.alloc(padding)]).toString("base64");
  const sixBits = (index: number) => BASE64.indexOf(encoded[index]!);
  const options = (index: number, unknownBits: number[]) => unknownBits.map((bits) => BASE64[sixBits(index) | bits]!).join("");
  const range = (count: number, shift: number) => Array.from({ length: count }, (_, k) => k << shift);

  let start = 0;
  let lead: string | undefined;
  if (alignment === 1) {
    // [n, s0, s1]: char 1 = low 2 bits of n, high 4 bits of s0.
    lead = options(1, range(4, 4));
    start = 2;
  } else if (alignment === 2) {
    // [n, m, s0]: char 2 = low 4 bits of m, high 2 bits of s0.
    lead = options(2, range(16, 2));
    start = 3;
  }
  let end = encoded.length;
  let tail: string | undefined;
  const remainder = total % 3;
  if (remainder === 1) {
    // [sL, n, m]: char 1 of the group = low 2 bits of sL, high 4 bits of n.
    tail = options(encoded.length - 3, range(16, 0));
    end = encoded.length - 3;
  } else if (remainder === 2) {
    // [sK, sL, n]: char 2 of the group = low 4 bits of sL, high 2 bits of n.
    tail = options(encoded.length - 2, range(4, 0));
    end = encoded.length - 2;
  }
  const aligned: AlignedBase64 = { fixed: encoded.slice(start, end) };
  if (lead !== undefined) aligned.lead = lead;
  if (tail !== undefined) aligned.tail = tail;
  return aligned;
}

function render(aligned: AlignedBase64, alphabetTail: "+/" | "-_"): string {
  const translate = (text: string) => (alphabetTail === "+/" ? text : text.replace(/\+/g, "-").replace(/\//g, "_"));
  const charClass = (chars: string) => `[${[...new Set(translate(chars))].map(escapeInClass).join("")}]`;
  let out = aligned.lead === undefined ? "" : charClass(aligned.lead);
  for (const char of translate(aligned.fixed)) out += charPattern(char);
  if (aligned.tail !== undefined) out += charClass(aligned.tail);
  // Padding, raw or percent-encoded, belongs to the encoded secret too.
  return `${out}(?:=|%3[Dd]){0,2}`;
}

/** One character of a secret in every form listed in the module doc. */
function charPattern(char: string, unicodeEscapes = false): string {
  if (/^[A-Za-z0-9]$/.test(char)) return unicodeEscapes ? `(?:${char}|\\\\+u${hexPattern(char.charCodeAt(0), 4)})` : char;
  const forms = new Set<string>();
  // Any number of backslashes before a char JSON may escape (`\"`, `\\\"`, `\/`).
  if (char === '"' || char === "/") forms.add(`\\\\*${escapeRegExp(char)}`);
  else if (char === "\\") forms.add("\\\\+");
  else forms.add(escapeRegExp(char));
  const shortEscape = JSON_SHORT_ESCAPES[char];
  if (shortEscape) forms.add(`\\\\+${shortEscape}`);
  let unicodeEscape = "";
  for (let i = 0; i < char.length; i++) unicodeEscape += `\\\\+u${hexPattern(char.charCodeAt(i), 4)}`;
  forms.add(unicodeEscape);
  let percent = "";
  for (const byte of Buffer.from(char, "utf8")) percent += `%${hexPattern(byte, 2)}`;
  forms.add(percent);
  if (char === " ") forms.add("\\+");
  return `(?:${[...forms].join("|")})`;
}

const JSON_SHORT_ESCAPES: Record<string, string> = { "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t" };

/** `%2f` and `%2F` are the same byte: match hex digits in either case. */
function hexPattern(code: number, width: number): string {
  return [...code.toString(16).padStart(width, "0")].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join("");
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

function escapeInClass(char: string): string {
  return /[\\\]^/+-]/.test(char) ? `\\${char}` : char;
}
