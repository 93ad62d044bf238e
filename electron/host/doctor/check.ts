/**
 * `workbench doctor`'s look at a data directory: every store's file checked
 * the way that store reads it (check-stores.ts), the run store with SQLite's
 * full integrity check, the parsed specs of the registered APIs, the
 * permissions of everything (owner-only), and the copies earlier recoveries
 * kept. Reading only: nothing is moved, rebuilt or created. `repairDataDir`
 * is the other half, and does exactly what each store would do on its own
 * the next time it is opened, now, plus the permission fixes. The serve
 * lockfile belongs to a face, so the CLI's doctor adds its check (`extra`).
 */
import { chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { keptCopiesOf } from "../common/json-file.ts";
import { ProgramsFile } from "../handlers/programs.ts";
import { McpTokenStore, inspectTokenFile, MCP_TOKEN_FILE } from "../mcp/token.ts";
import { describeRecovery, inspectRunStore, openRunDatabase, STORE_FILE } from "../runs/open-database.ts";
import { readRegistryFile } from "../specs/registry-file.ts";
import { loadDocument, VAULT_FILE } from "../vault/store.ts";
import { checkArtifacts, checkMcpToken, checkPrograms, checkRegistry, checkRunStore, checkVault } from "./check-stores.ts";
import { note, problem, report, type DoctorReport, type Finding } from "./findings.ts";

/** The files of a data directory, by name; a kept copy is `<name>.unreadable-*`, `.damaged-*` or `.corrupt-*`. */
export const DATA_FILES = ["registry.json", VAULT_FILE, "vault.key", "programs.json", MCP_TOKEN_FILE, "serve.lock.json", STORE_FILE] as const;

export function checkDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env, extra: (dataDir: string) => Finding[] = () => []): DoctorReport {
  if (!existsSync(dataDir)) return report(dataDir, [note(".", `${dataDir} does not exist yet: the first workbench command creates it`)]);
  const registry = checkRegistry(dataDir);
  const findings: Finding[] = [
    ...permissions(dataDir),
    ...registry.findings,
    ...checkArtifacts(dataDir, registry.contents),
    ...checkVault(dataDir, env),
    ...checkPrograms(dataDir),
    ...checkMcpToken(dataDir),
    ...guarded(STORE_FILE, () => checkRunStore(dataDir)),
    ...extra(dataDir),
    ...keptCopies(dataDir),
  ];
  return report(dataDir, findings);
}

/** Does now what each store does when it next opens a damaged file, and makes everything owner-only. Returns what was done. */
export function repairDataDir(dataDir: string, now: () => Date = () => new Date()): string[] {
  if (!existsSync(dataDir)) return [];
  const done: string[] = [];
  for (const { path, mode, want } of modeProblems(dataDir)) {
    chmodSync(path, want);
    done.push(`${path}: mode ${octal(mode)} → ${octal(want)}`);
  }
  const registry = readRegistryFile(join(dataDir, "registry.json"), now);
  if (registry.status === "moved-aside") done.push(`registry.json moved to ${registry.keptAt} (${registry.problem})`);
  const vault = loadDocument(dataDir);
  if (vault.ok && vault.notice) done.push(vault.notice);
  new ProgramsFile(dataDir, (message) => done.push(message)).list();
  if (inspectTokenFile(dataDir).status === "damaged") {
    const tokens = new McpTokenStore(dataDir, now);
    if (tokens.notice) done.push(tokens.notice);
  }
  const runs = inspectRunStore(dataDir);
  if (runs.status === "damaged") {
    const opened = openRunDatabase(dataDir, now, "thorough");
    opened.db.close();
    if (opened.recovered) done.push(describeRecovery(opened.recovered));
  }
  return done;
}

function permissions(dataDir: string): Finding[] {
  return modeProblems(dataDir).map(({ path, mode, want, owner }) => {
    const relative = path === dataDir ? "." : path.slice(dataDir.length + 1);
    if (owner) return problem(relative, `${relative === "." ? "the data directory" : relative} belongs to another user (uid ${owner})`, `chown it to yourself`);
    const what = relative === "." ? "the data directory" : relative;
    return problem(relative, `${what} can be read by other users (mode ${octal(mode)}); it must be owner-only`, `workbench doctor --repair, or: chmod ${octal(want).slice(1)} '${path}'`);
  });
}

/** The data directory, its artifacts folder and every file in either that others can reach, or that is not ours. */
function modeProblems(dataDir: string): { path: string; mode: number; want: number; owner?: number }[] {
  if (process.platform === "win32") return [];
  const uid = process.getuid?.();
  const found: { path: string; mode: number; want: number; owner?: number }[] = [];
  const look = (path: string) => {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      return;
    }
    const want = stats.isDirectory() ? 0o700 : 0o600;
    if (uid !== undefined && stats.uid !== uid) found.push({ path, mode: stats.mode & 0o777, want, owner: stats.uid });
    else if ((stats.mode & 0o077) !== 0) found.push({ path, mode: stats.mode & 0o777, want });
  };
  look(dataDir);
  for (const name of readdirSync(dataDir)) look(join(dataDir, name));
  const artifacts = join(dataDir, "artifacts");
  if (existsSync(artifacts)) for (const name of readdirSync(artifacts)) look(join(artifacts, name));
  return found;
}

function keptCopies(dataDir: string): Finding[] {
  const names = readdirSync(dataDir);
  return DATA_FILES.flatMap((file) =>
    keptCopiesOf(join(dataDir, file), names).map((name) => {
      const when = statSync(join(dataDir, name)).mtime.toISOString();
      return note(name, `a copy of ${file} kept by an earlier recovery (last changed ${when})`, `look inside if something is missing; delete it when you no longer need it`);
    }),
  );
}

/** A check that throws (permissions, a folder where a file should be) becomes a finding instead of ending the doctor. */
function guarded(path: string, check: () => Finding[]): Finding[] {
  try {
    return check();
  } catch (err) {
    return [problem(path, `${path} could not be checked: ${err instanceof Error ? err.message : String(err)}`, `check its owner and permissions (ls -l '${path}')`)];
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}
