// `npm run lint:security`: Electronegativity (Doyensec's checker for Electron
// misconfigurations) over the app's main-process code: main.ts, preload.ts,
// ipc.ts and electron/shell/, with the renderer's HTML and package.json (for
// Electron's version). Fails on any HIGH finding, and on a file it could not
// parse (its checks did not run there). Findings below HIGH are printed for
// review; docs/desktop.md says why each one that remains is accepted.
//
// It scans sources, not dist/electron: its JavaScript parser predates private
// class fields and stops at the bundle's first `#field`. The stand-in (which
// implements Electron's API) and tests are left out so they cannot satisfy a
// check on the app's behalf.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const SCANNED = ["electron/main.ts", "electron/preload.ts", "electron/ipc.ts", ...readdirSync(join(root, "electron/shell")).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts")).map((f) => `electron/shell/${f}`), "renderer/index.html"];

interface Finding {
  id: string;
  file: string;
  location: { line: number; column: number };
  severity: { name: string; value: number };
  confidence: { name: string };
  description: string;
  manualReview?: boolean;
}
type Runner = (options: Record<string, unknown>, forCli: boolean) => Promise<{ issues: Finding[]; errors: { file: string; message: string; tolerable: boolean }[]; globalChecks: number; atomicChecks: number }>;

/** Scans `files` (paths under `from`) as one app, with this checkout's package.json. */
export async function scan(files: string[] = SCANNED, from = root): Promise<{ findings: Finding[]; unparsed: string[]; checks: number }> {
  const dir = mkdtempSync(join(tmpdir(), "wb-electronegativity-"));
  try {
    for (const file of files) cpSync(join(from, file), join(dir, file));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    cpSync(join(root, "package.json"), join(dir, "package.json"));
    const run = createRequire(import.meta.url)("@doyensec/electronegativity/dist/runner.js") as Runner;
    // Its progress chatter (translations and Electron releases it cannot fetch offline) is not the result.
    const log = console.log;
    console.log = () => {};
    let result: Awaited<ReturnType<Runner>>;
    try {
      result = await run({ input: dir, isRelative: true, customScan: [], excludeFromScan: [], electronVersionOverride: pkg.devDependencies.electron, parserPlugins: [] }, false);
    } finally {
      console.log = log;
    }
    return { findings: result.issues, unparsed: result.errors.filter((e) => !e.tolerable).map((e) => `${e.file}: ${e.message}`), checks: result.globalChecks + result.atomicChecks };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function highSeverity(findings: Finding[]): Finding[] {
  return findings.filter((f) => f.severity.value >= 3);
}

if (import.meta.main) {
  const { findings, unparsed, checks } = await scan();
  const order = [...findings].sort((a, b) => b.severity.value - a.severity.value || a.id.localeCompare(b.id));
  process.stdout.write(`electronegativity: ${checks} checks over ${SCANNED.length} files\n`);
  for (const f of order) {
    process.stdout.write(`  ${f.severity.name.padEnd(13)} ${f.id}  ${f.file === "N/A" ? "(whole app)" : `${f.file}:${f.location.line}`}  ${f.description}\n`);
  }
  for (const problem of unparsed) process.stdout.write(`  NOT CHECKED   ${problem}\n`);
  const high = highSeverity(findings);
  if (high.length || unparsed.length) {
    process.stderr.write(`lint:security: ${high.length} high-severity finding(s), ${unparsed.length} file(s) not checked\n`);
    process.exit(1);
  }
  process.stdout.write(`lint:security: no high-severity finding (${findings.length} to review, listed above)\n`);
}
