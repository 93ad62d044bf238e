/**
 * Stage 1: text to a JSON value. JSON goes through `JSON.parse` (GitHub's 13 MB
 * spec in about 0.1 s); anything else, or JSON that `JSON.parse` refuses, goes
 * through the `yaml` package, which reads JSON too and says where it stopped.
 *
 * Guards against: alias bombs (`yaml` counts aliases), duplicate keys (the
 * last one wins, as in most tools, but we say so), multiple documents in one
 * file, and binary files fed by mistake.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import type { JsonValue } from "../../../shared/json.ts";
import type { RepairWarning } from "../../../shared/artifact.ts";
import { childPointer } from "./pointer.ts";
import type { IngestError } from "./report.ts";

export type ParseResult =
  | { ok: true; document: JsonValue; format: "json" | "yaml"; warnings: RepairWarning[] }
  | { ok: false; error: IngestError };

/** Aliases `yaml` may expand before it calls the document an exhaustion attack. */
const MAX_YAML_ALIASES = 10_000;

export function parseSpecText(text: string): ParseResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === "") return fail("empty-document", "the document is empty");
  const nul = body.indexOf("\u0000");
  if (nul >= 0) return fail("not-text", `the document contains a NUL byte at ${lineColumn(body, nul)}; it looks like a binary file, not JSON or YAML`);

  const first = body.trimStart()[0];
  if (first === "{" || first === "[") {
    try {
      return { ok: true, document: JSON.parse(body) as JsonValue, format: "json", warnings: [] };
    } catch (err) {
      const jsonMessage = describeJsonError(body, err);
      const yaml = parseYaml(body);
      if (!yaml.ok) return fail("parse-error", `not valid JSON: ${jsonMessage}`);
      yaml.warnings.unshift({ code: "not-strict-json", pointer: "", message: `not valid JSON (${jsonMessage}); read as YAML instead, which accepted it` });
      return yaml;
    }
  }
  return parseYaml(body);
}

function parseYaml(text: string): ParseResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, merge: true, lineCounter, logLevel: "error", prettyErrors: true });
  const firstError = doc.errors[0];
  if (firstError) {
    if (/call stack/i.test(firstError.message)) return fail("too-deep", "the YAML nests too deeply to read (thousands of levels)");
    const at = firstError.linePos?.[0];
    const where = at ? `line ${at.line}, column ${at.col}` : "an unknown position";
    const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more errors)` : "";
    const reason = firstLine(firstError.message).replace(/ at line \d+, column \d+:?$/, "");
    return fail("parse-error", `not valid YAML at ${where}: ${reason}${more}`);
  }
  let document: JsonValue;
  try {
    document = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as JsonValue;
  } catch (err) {
    if (err instanceof ReferenceError) {
      return fail("alias-bomb", `the YAML expands its aliases (*name) beyond ${MAX_YAML_ALIASES} times; refusing it as a resource exhaustion attack`);
    }
    return fail("parse-error", `could not read the YAML: ${firstLine(err instanceof Error ? err.message : String(err))}`);
  }
  const warnings = duplicateKeyWarnings(doc.contents, lineCounter);
  return { ok: true, document: document ?? null, format: "yaml", warnings };
}

/** `yaml` with `uniqueKeys: false` keeps the last value; report each repeated key with its pointer. */
function duplicateKeyWarnings(root: Node | null, lines: LineCounter): RepairWarning[] {
  const warnings: RepairWarning[] = [];
  const stack: { node: unknown; pointer: string; depth: number }[] = [{ node: root, pointer: "", depth: 0 }];
  while (stack.length > 0 && warnings.length < 1_000) {
    const { node, pointer, depth } = stack.pop()!;
    if (depth > 500 || isAlias(node)) continue;
    if (isSeq(node)) {
      node.items.forEach((item, i) => stack.push({ node: item, pointer: childPointer(pointer, i), depth: depth + 1 }));
    } else if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const at = childPointer(pointer, key);
        if (seen.has(key)) {
          const offset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
          const where = offset === undefined ? "" : ` (line ${lines.linePos(offset).line})`;
          warnings.push({ code: "duplicate-key", pointer: at, message: `the key ${JSON.stringify(key)} appears more than once${where}; the last one was kept` });
        }
        seen.add(key);
        stack.push({ node: pair.value, pointer: at, depth: depth + 1 });
      }
    }
  }
  return warnings;
}

function describeJsonError(text: string, err: unknown): string {
  const full = err instanceof Error ? err.message : String(err);
  const message = firstLine(full);
  if (/\(line \d+ column \d+\)/.test(message)) return message;
  const position = /at position (\d+)/.exec(message);
  if (position) return `${message} (${lineColumn(text, Number(position[1]))})`;
  // V8 quotes the text around an unexpected token instead of a position: find it.
  const token = /^Unexpected token '(.)', (?:\.\.\.)?"(.*)"(?:\.\.\.)? is not valid JSON$/s.exec(full);
  if (token) {
    const snippet = token[2]!;
    const start = text.indexOf(snippet);
    const offset = start >= 0 ? start + snippet.indexOf(token[1]!) : -1;
    if (offset >= 0) return `unexpected ${JSON.stringify(token[1])} at ${lineColumn(text, offset)}`;
  }
  return token ? `unexpected ${JSON.stringify(token[1])}` : message;
}

function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.trim();
}

function fail(code: string, message: string): ParseResult {
  return { ok: false, error: { code, pointer: "", message } };
}
