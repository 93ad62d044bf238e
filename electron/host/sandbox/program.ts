/**
 * Turns what a person or an agent wrote into one script that QuickJS evaluates
 * to a function. Accepted forms:
 *   - a function expression: `async () => {...}`, `() => ...`, `function () {...}`;
 *   - a function body: statements with top-level `return` and `await`; a body
 *     that is a single expression returns that expression's value.
 * TypeScript is accepted: when the text does not parse as JavaScript, its types
 * are stripped with amaro (Node's own strip-types), which keeps every position.
 * A syntax error is data with a line and column in the text as written.
 */
import { createRequire } from "node:module";
import { parse, type Program } from "acorn";

/** The file name QuickJS sees; stack frames name it, and `programLocation` looks for it. */
export const PROGRAM_FILE = "program.js";

export type PreparedProgram =
  | {
      ok: true;
      /** Evaluates (as a global script) to the program's function. */
      script: string;
      form: "function" | "body";
      /** Characters added before the program on line 1 (subtract them from line-1 columns). */
      firstLineShift: number;
      /** Whether types were stripped. */
      typescript: boolean;
    }
  | { ok: false; error: ProgramSyntaxError };

export interface ProgramSyntaxError {
  name: "SyntaxError";
  /** The parser's message followed by `(line L, column C)`. */
  message: string;
  line: number;
  column: number;
}

interface Position {
  line: number;
  /** 1-based. */
  column: number;
}

const BODY_PREFIX = "(async function program() {";
const BODY_RETURN_PREFIX = "(async function program() { return (";
/** Wrapping a body before stripping lets amaro parse top-level `return` and `await`. */
const STRIP_PREFIX = "async function program() {";
const STRIP_SUFFIX = "\n}";

export function prepareProgram(code: string): PreparedProgram {
  const js = interpret(code);
  if (js.ok) return { ok: true, typescript: false, ...wrap(js.source, js.program, js.shift) };
  const stripped = stripTypes(code);
  if (!stripped.ok) {
    // Report whichever parser got further: a JavaScript parser stops at the first
    // type annotation, a TypeScript parser at the real mistake.
    const useTs = stripped.unsupported || isAfter(stripped.at, js.at);
    return syntaxError(code, useTs ? stripped.message : js.message, useTs ? stripped.at : js.at);
  }
  const ts = interpret(stripped.code);
  if (!ts.ok) return syntaxError(code, ts.message, ts.at);
  return { ok: true, typescript: true, ...wrap(ts.source, ts.program, ts.shift) };
}

type Interpreted = { ok: true; source: string; program: Program; shift: number } | { ok: false; message: string; at: Position };

/**
 * Parses a program as written; failing that, in parentheses, which is how an
 * anonymous `function () {...}` (a syntax error as a statement) becomes the
 * function expression its author meant.
 */
function interpret(source: string): Interpreted {
  const plain = parseJavaScript(source);
  if (plain.ok) return { ok: true, source, program: plain.program, shift: 0 };
  const wrapped = `(${source}\n)`;
  const parenthesised = parseJavaScript(wrapped);
  if (parenthesised.ok && functionExpression(parenthesised.program)) return { ok: true, source: wrapped, program: parenthesised.program, shift: 1 };
  return plain;
}

function functionExpression(program: Program): boolean {
  const only = program.body.length === 1 ? program.body[0] : undefined;
  return only?.type === "ExpressionStatement" && (only.expression.type === "ArrowFunctionExpression" || only.expression.type === "FunctionExpression");
}

function wrap(source: string, program: Program, shift: number): { script: string; form: "function" | "body"; firstLineShift: number } {
  const only = program.body.length === 1 ? program.body[0] : undefined;
  // A script whose only statement is an expression evaluates to its value.
  if (functionExpression(program)) return { script: source, form: "function", firstLineShift: shift };
  if (only?.type === "FunctionDeclaration" && only.id) {
    return { script: `${source}\n;${only.id.name}`, form: "function", firstLineShift: 0 };
  }
  if (only?.type === "ExpressionStatement") {
    // Everything up to the end of the expression: drops a trailing `;` and comments.
    return { script: `${BODY_RETURN_PREFIX}${source.slice(0, only.expression.end)}\n) })`, form: "body", firstLineShift: BODY_RETURN_PREFIX.length };
  }
  return { script: `${BODY_PREFIX}${source}\n})`, form: "body", firstLineShift: BODY_PREFIX.length };
}

type ParseResult = { ok: true; program: Program } | { ok: false; message: string; at: Position };

function parseJavaScript(source: string): ParseResult {
  try {
    const program = parse(source, {
      ecmaVersion: "latest",
      sourceType: "script",
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      allowHashBang: true,
    });
    return { ok: true, program };
  } catch (err) {
    const e = err as SyntaxError & { loc?: { line: number; column: number } };
    const message = String(e.message).replace(/\s*\(\d+:\d+\)$/, "");
    return { ok: false, message, at: e.loc ? { line: e.loc.line, column: e.loc.column + 1 } : { line: 1, column: 1 } };
  }
}

type StripResult = { ok: true; code: string } | { ok: false; message: string; at: Position; unsupported: boolean };

interface AmaroError {
  code: "UnsupportedSyntax" | "InvalidSyntax";
  message: string;
  startLine: number;
  startColumn: number;
}

let amaro: { transformSync(code: string, options: { mode: "strip-only" }): { code: string } } | undefined;

function stripTypes(source: string): StripResult {
  const asBody = stripWrapped(STRIP_PREFIX, source, STRIP_SUFFIX);
  if (asBody.ok) return asBody;
  // An anonymous `function (x: T) {...}` is only valid in parentheses.
  const asExpression = stripWrapped("(", source, "\n)");
  return asExpression.ok ? asExpression : asBody;
}

function stripWrapped(prefix: string, source: string, suffix: string): StripResult {
  // Loaded on first use: plain JavaScript programs never pay for its WASM start-up.
  amaro ??= createRequire(import.meta.url)("amaro") as NonNullable<typeof amaro>;
  try {
    const out = amaro.transformSync(`${prefix}${source}${suffix}`, { mode: "strip-only" }).code;
    if (!out.startsWith(prefix) || !out.endsWith(suffix)) {
      return { ok: false, message: "could not strip the program's types", at: { line: 1, column: 1 }, unsupported: true };
    }
    return { ok: true, code: out.slice(prefix.length, out.length - suffix.length) };
  } catch (err) {
    const e = err as Partial<AmaroError>;
    if (typeof e.startLine !== "number" || typeof e.startColumn !== "number") {
      return { ok: false, message: String((err as Error)?.message ?? err), at: { line: 1, column: 1 }, unsupported: false };
    }
    const line = e.startLine;
    const column = e.startColumn + 1 - (line === 1 ? prefix.length : 0);
    const hint = e.code === "UnsupportedSyntax" ? " (only erasable TypeScript is accepted: no enums, parameter properties or namespaces with values)" : "";
    return { ok: false, message: `${e.message ?? "invalid syntax"}${hint}`, at: { line, column: Math.max(1, column) }, unsupported: e.code === "UnsupportedSyntax" };
  }
}

function syntaxError(code: string, message: string, at: Position): PreparedProgram {
  // A position in the wrapper's closing line means the program ended too early.
  const lastLine = code.split("\n").length;
  const line = Math.min(at.line, lastLine);
  const column = at.line > lastLine ? (code.split("\n")[lastLine - 1]?.length ?? 0) + 1 : at.column;
  return { ok: false, error: { name: "SyntaxError", message: `${message} (line ${line}, column ${column})`, line, column } };
}

function isAfter(a: Position, b: Position): boolean {
  return a.line > b.line || (a.line === b.line && a.column > b.column);
}

/**
 * The first position in the program named by a QuickJS stack (`at f (program.js:3:5)`),
 * mapped back to the text as written.
 */
export function programLocation(stack: string | undefined, firstLineShift: number): Position | undefined {
  if (!stack) return undefined;
  const match = new RegExp(`${PROGRAM_FILE.replace(".", "\\.")}:(\\d+):(\\d+)`).exec(stack);
  if (!match) return undefined;
  const line = Number(match[1]);
  const column = Number(match[2]) - (line === 1 ? firstLineShift : 0);
  return { line, column: Math.max(1, column) };
}
