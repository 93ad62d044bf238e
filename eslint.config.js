// Lint config. The layering rules at the bottom are the point: a file's folder
// says what it may touch (shared → electron/host → electron/main; renderer
// beside it, importing only shared). See ../shared/DESIGN.md, "Layout".
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import { builtinModules } from "node:module";
import { layersPlugin } from "./scripts/eslint-layers.js";

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), "node:*"];
/**
 * Which of our folders each host folder may import (first matching target
 * wins; see scripts/eslint-layers.js). Read bottom-up: shared/ is the floor;
 * host/common/ holds helpers any host folder may use; the domain folders come
 * next; the composition root (host/*.ts), handlers/ and mcp/ sit on top. No
 * host file may import a face (electron/cli*, electron/serve*) or the Electron
 * files (main.ts, preload.ts, ipc.ts): none of them is in any allow-list.
 */
const SHARED = "shared/**";
const COMMON = "electron/host/common/**";
const HOST_ROOT = "electron/host/*";
/** Tests may also use the test helpers, and drive the CLI end to end to prove what a person sees. */
const TEST_SUPPORT = ["electron/host/test-support/**", "scripts/fixtures.ts", "electron/cli.ts", "electron/cli/io.ts"];
/** Running a program takes the sandbox, the proxy and the store together: runs/ and tools/ share one layer. */
const RUN_LAYER = ["runs", "tools", "proxy", "sandbox", "specs", "vault"].map((folder) => `electron/host/${folder}/**`);
const HOST_LAYERS = [
  { target: "electron/host/common/**", allow: [COMMON, SHARED], why: "common/ is the bottom of the host: helpers with no domain." },
  {
    target: "electron/host/sandbox/**",
    // The asset table: the sandbox finds its worker, the guest sources and QuickJS's WASM through it.
    allow: ["electron/host/sandbox/**", "electron/host/common/assets.ts", SHARED],
    why: "The sandbox runs guest code in workers: it must not reach the proxy, the vault or the disk through our modules.",
  },
  {
    target: "electron/host/specs/**",
    allow: ["electron/host/specs/**", COMMON, SHARED, "electron/host/data-dir.ts", "specs/**"],
    allowInTests: TEST_SUPPORT,
    why: "Ingest and the registry know nothing of the proxy, the sandbox or the vault.",
  },
  { target: "electron/host/vault/**", allow: ["electron/host/vault/**", COMMON, SHARED, "electron/host/data-dir.ts"], allowInTests: TEST_SUPPORT },
  {
    target: "electron/host/proxy/**",
    allow: ["electron/host/proxy/**", "electron/host/vault/**", "electron/host/specs/**", COMMON, SHARED],
    allowInTests: TEST_SUPPORT,
  },
  {
    target: "electron/host/oauth/**",
    allow: ["electron/host/oauth/**", "electron/host/proxy/**", "electron/host/vault/**", "electron/host/specs/**", COMMON, SHARED],
    allowInTests: [...TEST_SUPPORT, HOST_ROOT],
    why: "Sign-ins keep their tokens in the vault and hand them to the proxy through its SignInTokens interface (the proxy never imports oauth/); they run no programs.",
  },
  {
    target: "electron/host/runs/**",
    allow: [...RUN_LAYER, "electron/host/events.ts", "electron/host/data-dir.ts", COMMON, SHARED],
    allowInTests: [...TEST_SUPPORT, HOST_ROOT],
  },
  {
    target: "electron/host/tools/**",
    // The tool definitions are handed the Workbench they run on, and run programs under its agent limits.
    allow: [...RUN_LAYER, "electron/host/workbench.ts", "electron/host/agent-limits.ts", COMMON, SHARED],
    // The editor's declarations come from the same generator as declaration(id): their tests compile both.
    allowInTests: [...TEST_SUPPORT, "electron/host/handlers/declarations.ts"],
  },
  {
    target: "electron/host/**",
    allow: ["electron/host/**", SHARED, "specs/**"],
    allowInTests: TEST_SUPPORT,
    why: "Host code never imports a face (electron/cli, electron/serve) or the Electron files (main.ts, preload.ts, ipc.ts).",
  },
];

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
  {
    files: ["electron/host/**/*.ts"],
    plugins: { workbench: layersPlugin },
    rules: { "workbench/layers": ["error", { layers: HOST_LAYERS }] },
  },
);
