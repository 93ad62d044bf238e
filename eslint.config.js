// Lint config. The layering rules at the bottom are the point: a file's folder
// says what it may touch (shared → electron/host → electron/main; renderer
// beside it, importing only shared). See ../shared/DESIGN.md, "Layout".
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import { builtinModules } from "node:module";

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), "node:*"];
const electronOnlyInMain = {
  name: "electron",
  message: "Only electron/main.ts, electron/preload.ts and electron/ipc.ts may import 'electron'; host code must run in plain Node.",
};

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", ".cache/", "e2e/screenshots/", "test-results/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  {
    files: ["renderer/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      "no-restricted-imports": ["error", {
        paths: [electronOnlyInMain],
        patterns: [
          { group: ["**/electron/**", "**/electron"], message: "The renderer imports only shared/: it talks to the host through shared/contract." },
          { group: nodeBuiltins, message: "The renderer runs in a browser: no Node built-ins." },
        ],
      }],
    },
  },
  {
    files: ["shared/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [electronOnlyInMain],
        patterns: [
          { group: ["**/electron/**", "**/renderer/**"], message: "shared/ imports nothing of ours: it is the bottom layer." },
          { group: nodeBuiltins, message: "shared/ is loaded by the renderer too: no Node built-ins." },
        ],
      }],
    },
  },
  {
    files: ["electron/**/*.ts", "specs/**/*.ts", "bench/**/*.ts", "e2e/**/*.ts", "scripts/**/*.{js,ts}", "bin/**/*.js"],
    ignores: ["electron/main.ts", "electron/preload.ts", "electron/ipc.ts", "**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [electronOnlyInMain],
        patterns: [{ group: ["**/renderer/**"], message: "Host code never imports the renderer." }],
      }],
    },
  },
);
