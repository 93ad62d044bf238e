/**
 * `workbench doctor [--repair] [--json]`: checks the data directory (every
 * file, the run store's integrity, the parsed specs, permissions, copies kept
 * by earlier recoveries) and prints what it finds. Exit status 0 when nothing
 * is wrong, 1 when something is. `--repair` first does what each store does
 * when it next meets the damage (salvage the run store, move unreadable files
 * aside, make files owner-only), then checks again; it refuses while another
 * process serves the data directory, whose open store it would pull away.
 *
 * Also here: the words every CLI command uses when the run store turns out to
 * be damaged in the middle of a command.
 */
import type { Command } from "commander";
import { ensureDataDir, resolveDataDir } from "../host/data-dir.ts";
import { checkDataDir, repairDataDir } from "../host/doctor/check.ts";
import { note, ok, problem, type DoctorReport, type Finding } from "../host/doctor/findings.ts";
import { isCorruptionError } from "../host/runs/open-database.ts";
import { inspectLock, liveLock, LOCKFILE_NAME, readLock } from "../serve/lockfile.ts";
import { CliError, printJson, type CliIo } from "./io.ts";

interface DoctorOptions {
  dataDir?: string;
  json?: boolean;
  repair?: boolean;
}

export function registerDoctorCommand(program: Command, io: CliIo): void {
  program
    .command("doctor")
    .description("Check the data directory: every file, the run store's integrity, the parsed specs, permissions. Exits 1 when something is wrong.")
    .option("--repair", "first do what each store does when it meets damage (salvage the run store's readable runs, move unreadable files aside, make files owner-only)")
    .option("--json", "print the report as JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action((options: DoctorOptions) => {
      const dataDir = resolveDataDir({ flag: options.dataDir, env: io.env });
      const repaired = options.repair ? repair(dataDir) : [];
      const result = checkDataDir(dataDir, io.env, lockFindings);
      if (options.json) printJson(io, { ...result, ...(options.repair ? { repaired } : {}) });
      else io.stdout(formatReport(result, repaired, options.repair));
      if (!result.healthy) io.exit(1);
    });
}

/** A CliError that says what is wrong and what to do, when `err` is SQLite finding the run store damaged; undefined otherwise. */
export function damagedStoreError(err: unknown, storePath: string): CliError | undefined {
  if (!isCorruptionError(err)) return undefined;
  const detail = (err as { errstr?: string }).errstr ?? (err as Error).message;
  return new CliError(
    `the run store at ${storePath} is damaged (SQLite: ${detail}). ` +
      "Run `workbench doctor` to see what is damaged, and `workbench doctor --repair` to copy every readable run into a new store (the damaged file is kept beside it).",
  );
}

function repair(dataDir: string): string[] {
  const serving = liveLock(dataDir);
  if (serving && serving.pid !== process.pid) {
    throw new CliError(`the ${serving.kind} (pid ${serving.pid}) is using ${dataDir}; stop it first, then run workbench doctor --repair (repairing would pull its files away from under it)`);
  }
  ensureDataDir(dataDir);
  const done = repairDataDir(dataDir);
  if (inspectLock(dataDir).status === "damaged") {
    readLock(dataDir); // moves a damaged lockfile aside, as every reader does
    done.push(`${LOCKFILE_NAME} could not be read and was moved aside`);
  }
  return done;
}

function lockFindings(dataDir: string): Finding[] {
  const state = inspectLock(dataDir);
  switch (state.status) {
    case "missing":
      return [ok(LOCKFILE_NAME, "no workbench is serving this data directory")];
    case "ok": {
      const lock = state.value;
      if (liveLock(dataDir)) return [note(LOCKFILE_NAME, `served by the ${lock.kind} (pid ${lock.pid}) at ${lock.url} since ${lock.startedAt}`)];
      return [note(LOCKFILE_NAME, `left by the ${lock.kind} (pid ${lock.pid}), which is gone; the next one to serve replaces it`)];
    }
    case "damaged":
      return [problem(LOCKFILE_NAME, `${LOCKFILE_NAME} cannot be read: ${state.problem}`, "workbench doctor --repair moves it aside; the CLI then works without the running instance until it writes a new one")];
    case "newer":
    case "unreadable":
      return [problem(LOCKFILE_NAME, `${LOCKFILE_NAME}: ${state.problem}`)];
  }
}

const LABELS = { ok: "ok", note: "note", problem: "PROBLEM" } as const;

/** `artifacts/f70acba120f7….json`: the full hash is in --json; twelve characters tell specs apart on screen. */
const shortPath = (path: string) => path.replace(/\b([0-9a-f]{12})[0-9a-f]{52}\b/, "$1…");

export function formatReport(result: DoctorReport, repaired: string[], repairing = false): string {
  const lines = [`Data directory: ${result.dataDir}`];
  if (repaired.length) lines.push("", "Repaired:", ...repaired.map((r) => `  - ${r}`), "");
  else if (repairing) lines.push("", "Nothing needed repairing.", "");
  const width = Math.max(...result.findings.map((f) => shortPath(f.path).length));
  for (const finding of result.findings) {
    lines.push(`  ${LABELS[finding.severity].padEnd(7)}  ${shortPath(finding.path).padEnd(width)}  ${finding.message}`);
    if (finding.fix) lines.push(`  ${"".padEnd(7)}  ${"".padEnd(width)}  fix: ${finding.fix}`);
  }
  const problems = result.findings.filter((f) => f.severity === "problem").length;
  lines.push("", problems === 0 ? "Nothing is wrong." : `${problems} problem${problems === 1 ? "" : "s"} found.`);
  return `${lines.join("\n")}\n`;
}
