/**
 * Monaco, bundled by Vite (no CDN, so the CSP's script-src 'self' holds), with
 * only JavaScript and TypeScript (monaco-editor.ts), set up once: its workers, a TypeScript service that knows the registered APIs
 * (`apis.declarations` as an extra lib), and the OS's light or dark theme.
 */
import * as monaco from "./monaco-editor.ts";
import EditorWorker from "monaco-editor/editor/editor.worker?worker";
import TsWorker from "monaco-editor/language/typescript/ts.worker?worker";
import { CONSOLE_DECLARATION } from "../../shared/program-globals.ts";

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(workerId: string, label: string): Worker };
  }
}

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string) {
    return label === "typescript" || label === "javascript" ? new TsWorker() : new EditorWorker();
  },
};

const ts = monaco.typescript;
ts.typescriptDefaults.setCompilerOptions({
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  // No DOM: a program has no window, fetch or timers, so completions should not offer them.
  lib: ["es2022"],
  allowNonTsExtensions: true,
  strict: false,
  noImplicitAny: false,
  // Each program is its own module: top-level await works and tabs do not share names.
  moduleDetection: 3,
} as Parameters<typeof ts.typescriptDefaults.setCompilerOptions>[0]);
ts.typescriptDefaults.setDiagnosticsOptions({
  noSemanticValidation: false,
  noSyntaxValidation: false,
  // 1108: a program may `return` its result at the top level (the host wraps it in a function).
  diagnosticCodesToIgnore: [1108, 1375, 1378],
});
ts.typescriptDefaults.setEagerModelSync(true);

/** Globals every program has, unless the host's declarations already describe them. */
const BASE_GLOBALS = CONSOLE_DECLARATION;

let libs: monaco.IDisposable[] = [];

export function setDeclarations(dts: string): void {
  for (const lib of libs) lib.dispose();
  libs = [ts.typescriptDefaults.addExtraLib(dts, "file:///workbench/apis.d.ts")];
  if (!/\bconsole\s*:/.test(dts) && !/declare\s+(const|var|let)\s+console\b/.test(dts)) {
    libs.push(ts.typescriptDefaults.addExtraLib(BASE_GLOBALS, "file:///workbench/globals.d.ts"));
  }
}

// The stock themes, on the app's own backgrounds; dark comments brightened to meet WCAG AA contrast.
monaco.editor.defineTheme("workbench-light", { base: "vs", inherit: true, rules: [], colors: { "editor.background": "#ffffff" } });
monaco.editor.defineTheme("workbench-dark", {
  base: "vs-dark",
  inherit: true,
  rules: [{ token: "comment", foreground: "7ca668" }],
  colors: { "editor.background": "#1b1d22" },
});
const dark = window.matchMedia("(prefers-color-scheme: dark)");
const themeName = () => (dark.matches ? "workbench-dark" : "workbench-light");
dark.addEventListener("change", () => monaco.editor.setTheme(themeName()));
export { themeName };

export { monaco };
