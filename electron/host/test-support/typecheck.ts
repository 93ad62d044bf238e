/**
 * Type-checks TypeScript sources the way Monaco does for the editor (lib
 * es2022, no DOM, no @types), with the real compiler: for tests of the
 * declarations we generate from specs. Each file is its own module unless it
 * is a .d.ts, so programs do not see each other.
 */
import ts from "typescript";

/** Diagnostics by file name (`file: message`), for every file given; an empty list means it compiles. */
export function typeErrors(files: Record<string, string>, options: { strict?: boolean } = {}): Record<string, string[]> {
  const sources = new Map(Object.entries(files).map(([name, text]) => [`/${name}`, text]));
  const compilerOptions: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, lib: ["lib.es2022.d.ts"], strict: options.strict ?? true, noEmit: true, types: [], skipLibCheck: false };
  const host = ts.createCompilerHost(compilerOptions);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => sources.get(name) ?? readFile(name);
  host.fileExists = (name) => sources.has(name) || ts.sys.fileExists(name);
  host.getSourceFile = (name, version) => (sources.has(name) ? ts.createSourceFile(name, sources.get(name)!, version) : getSourceFile(name, version));
  const program = ts.createProgram([...sources.keys()], compilerOptions, host);
  const out: Record<string, string[]> = Object.fromEntries(Object.keys(files).map((name) => [name, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = d.file?.fileName.slice(1) ?? "";
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    (out[name] ??= []).push(`${line}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
  }
  return out;
}
