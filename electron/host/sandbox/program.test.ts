import { describe, expect, it } from "vitest";
import { prepareProgram, programLocation } from "./program.ts";

function prepared(code: string) {
  const result = prepareProgram(code);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(code)} to parse: ${result.error.message}`);
  return result;
}

function syntaxError(code: string) {
  const result = prepareProgram(code);
  if (result.ok) throw new Error(`expected ${JSON.stringify(code)} to be a syntax error`);
  return result.error;
}

describe("prepareProgram: forms", () => {
  it.each([
    ["async () => { return 1 }"],
    ["async () => 1;"],
    ["() => 1 // trailing comment"],
    ["\n\n  async () => {\n  return 1\n}\n"],
  ])("keeps a function expression as written: %j", (code) => {
    const p = prepared(code);
    expect(p.form).toBe("function");
    expect(p.script).toBe(code);
    expect(p.firstLineShift).toBe(0);
  });

  it("accepts a named function declaration: the script ends with its name", () => {
    const p = prepared("async function main() { return 1 }");
    expect(p.form).toBe("function");
    expect(p.script).toBe("async function main() { return 1 }\n;main");
  });

  it("accepts an anonymous function by putting it in parentheses", () => {
    const p = prepared("async function () { return 1 }");
    expect(p).toMatchObject({ form: "function", script: "(async function () { return 1 }\n)", firstLineShift: 1 });
    expect(prepared("function (a: number) { return a }")).toMatchObject({ form: "function", typescript: true, firstLineShift: 1 });
  });

  it("wraps a body with top-level return and await in an async function, shifting only line 1", () => {
    const p = prepared("const x = await f();\nreturn x");
    expect(p.form).toBe("body");
    expect(p.script.startsWith("(async function program() {const x = await f();\nreturn x")).toBe(true);
    expect(p.firstLineShift).toBe("(async function program() {".length);
  });

  it("returns the value of a body that is one expression, dropping its trailing semicolon", () => {
    const p = prepared("specs.petstore.operations.length;");
    expect(p.form).toBe("body");
    expect(p.script).toBe("(async function program() { return (specs.petstore.operations.length\n) })");
  });

  it("treats a function followed by other statements as a body", () => {
    expect(prepared("const f = async () => 1;\nreturn f()").form).toBe("body");
  });
});

describe("prepareProgram: TypeScript", () => {
  it("strips types from an arrow function and keeps every position", () => {
    const code = "async (): Promise<number> => {\n  const x: number = 1;\n  return x\n}";
    const p = prepared(code);
    expect(p.typescript).toBe(true);
    expect(p.form).toBe("function");
    expect(p.script.split("\n").map((l) => l.length)).toEqual(code.split("\n").map((l) => l.length));
    expect(p.script).not.toContain("number");
  });

  it("strips types from a body with top-level return", () => {
    const p = prepared("interface Pet { id: number }\nconst pets: Pet[] = [];\nreturn pets.length");
    expect(p.typescript).toBe(true);
    expect(p.form).toBe("body");
    expect(p.script).not.toContain("interface");
  });

  it("leaves plain JavaScript alone", () => {
    expect(prepared("return 1 < 2").typescript).toBe(false);
  });
});

describe("prepareProgram: syntax errors", () => {
  it("reports a JavaScript error with its line and column as written", () => {
    const e = syntaxError("const a = 1;\nconst b = ;\n");
    expect(e).toMatchObject({ name: "SyntaxError", line: 2, column: 11 });
    expect(e.message).toBe("Unexpected token (line 2, column 11)");
  });

  it("reports a TypeScript error at the real mistake, not at the first annotation", () => {
    const e = syntaxError("const a: number = 1;\nconst b: string = ;");
    expect(e).toMatchObject({ line: 2, column: 19 });
    expect(e.message).toMatch(/Expression expected/);
  });

  it("corrects the column on line 1 for the wrapper added before stripping", () => {
    const e = syntaxError("const a: number = ;");
    expect(e).toMatchObject({ line: 1, column: 19 });
  });

  it("explains TypeScript that cannot be stripped", () => {
    const e = syntaxError("enum Color { Red }\nreturn Color.Red");
    expect(e.message).toMatch(/enum is not supported.*only erasable TypeScript/);
    expect(e.line).toBe(1);
  });

  it("points at the end of a program that stops too early", () => {
    const e = syntaxError("async () => {\n  return 1");
    expect(e.line).toBe(2);
  });

  it("rejects static import and export", () => {
    expect(syntaxError("import os from 'os'").line).toBe(1);
    expect(syntaxError("export const a = 1").line).toBe(1);
  });
});

describe("programLocation", () => {
  it("finds the first program frame and maps line-1 columns back", () => {
    const stack = "    at f (program.js:1:40)\n    at start (bootstrap.js:3:4)\n";
    expect(programLocation(stack, 27)).toEqual({ line: 1, column: 13 });
    expect(programLocation("    at <anonymous> (program.js:3:7)\n", 27)).toEqual({ line: 3, column: 7 });
    expect(programLocation("    at start (bootstrap.js:3:4)\n", 0)).toBeUndefined();
    expect(programLocation(undefined, 0)).toBeUndefined();
  });
});
