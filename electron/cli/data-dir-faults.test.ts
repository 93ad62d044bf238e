/**
 * Damaged bytes in each file of the data directory, met by real processes
 * (`node bin/workbench.js ...`, `workbench serve` with an MCP client): each
 * test asserts what `workbench doctor` says before, what the store and the
 * face say afterwards, and that nothing readable was lost (kept files hold the
 * exact bytes, readable entries and runs are still there).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DatabaseSync } from "node:sqlite";
import type { CodeRun } from "../../shared/runs.ts";
import { ProgramsFile } from "../host/handlers/programs.ts";
import { McpTokenStore } from "../host/mcp/token.ts";
import { Workbench } from "../host/workbench.ts";
import { LOCKFILE_NAME } from "../serve/lockfile.ts";
import { childEnv, envelopeOf, httpMcpClient, REPO_ROOT, spawnServe, TEST_VAULT_KEY, tempDataDir, WORKBENCH_BIN } from "../serve/test-support.ts";

const CANARY = "canary-51f0c2-vault-secret";
const SWAGGER = join(REPO_ROOT, "electron/host/specs/fixtures/swagger2-petstore.json");
const PAGE = 4096;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Output = { code: number | null; stdout: string; stderr: string };

function cli(dataDir: string, ...args: string[]): Output {
  return spawnCli(dataDir, args, "");
}

/** `workbench run` of a read of the demo API, the program on stdin. */
function runProgram(dataDir: string): Output {
  return spawnCli(dataDir, ["run", "--code", "-", "--policy", "read_only"], "async () => (await apis.petstore.listPets({})).status");
}

function spawnCli(dataDir: string, args: string[], input: string): Output {
  const child = spawnSync(process.execPath, [WORKBENCH_BIN, ...args, "--data-dir", dataDir], { cwd: REPO_ROOT, env: childEnv(dataDir), input, encoding: "utf8", timeout: 60_000 });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

function doctor(dataDir: string): { code: number | null; report: { healthy: boolean; findings: { path: string; severity: string; message: string; fix?: string }[] } } {
  const run = cli(dataDir, "doctor", "--json");
  return { code: run.code, report: JSON.parse(run.stdout) };
}

const problems = (dataDir: string) => doctor(dataDir).report.findings.filter((f) => f.severity === "problem");
const kept = (dataDir: string, prefix: string) => readdirSync(dataDir).filter((f) => f.startsWith(prefix));

/**
 * A data directory as a person would have it after a while: the demo API and a
 * second one, a vault with two items, 40 runs with a call each (a kilobyte of
 * program apiece, so the store spans many pages), editor tabs and an MCP token.
 */
async function usedDataDir(): Promise<{ dataDir: string; runs: CodeRun[] }> {
  const dataDir = tempDataDir("wb-faults-");
  dirs.push(dataDir);
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
  if (!opened.ok) throw new Error(opened.message);
  const workbench = opened.workbench;
  try {
    const { result } = workbench.registry.store.ingest(readFileSync(SWAGGER, "utf8"));
    if (!result.ok) throw new Error(result.error.message);
    workbench.registry.register("pets2", result.artifact, { baseUrl: "http://127.0.0.1:9/v2" }, { kind: "file", path: SWAGGER });
    workbench.vault.set("github", "token", CANARY, { allowApis: ["pets2"] });
    const runs: CodeRun[] = [];
    for (let i = 0; i < 40; i++) {
      const envelope = await workbench.execute({ code: `// run ${i}: ${"p".repeat(1000)}\nasync () => (await apis.petstore.listPets({})).status`, policy: "read_only", source: { kind: "cli" } });
      runs.push(workbench.store.getRun(envelope.run)!);
    }
    new ProgramsFile(dataDir).save([
      { id: "a", name: "first", code: "async () => 1", policy: "read_only" },
      { id: "b", name: "second", code: "async () => 2", policy: "all" },
    ]);
    new McpTokenStore(dataDir);
    return { dataDir, runs };
  } finally {
    await workbench.close();
  }
}

/** Flips bytes in the middle of a file (keeping its size), the way a bad sector or a torn copy would. */
function damageMiddle(path: string, length = 16): Buffer {
  const bytes = readFileSync(path);
  const start = Math.floor(bytes.length / 2);
  for (let i = start; i < start + length && i < bytes.length; i++) bytes[i] = bytes[i]! ^ 0x5a;
  writeFileSync(path, bytes);
  return bytes;
}

// Each test starts several real processes; on a loaded two-core machine that takes a while.
describe("a damaged data directory, met by real processes", { timeout: 180_000 }, () => {
  it("a healthy data directory: doctor finds nothing wrong and exits 0", async () => {
    const { dataDir } = await usedDataDir();
    const { code, report } = doctor(dataDir);
    expect(report.findings.filter((f) => f.severity === "problem")).toEqual([]);
    expect(report.healthy).toBe(true);
    expect(code).toBe(0);
    expect(report.findings.map((f) => f.path)).toEqual(expect.arrayContaining(["registry.json", "vault.json", "programs.json", "mcp.json", "runs.sqlite", LOCKFILE_NAME]));
    const text = cli(dataDir, "doctor");
    expect(text.stdout).toMatch(/ok +runs\.sqlite +40 runs, 40 calls, 0 decisions waiting; SQLite's integrity check passed/);
    expect(text.stdout).toMatch(/Nothing is wrong\.\n$/);
    expect(text.stdout + text.stderr).not.toContain(CANARY);
  });

  it("registry.json with one bad entry keeps it, unusable, until removed; the damage is copied once", async () => {
    const { dataDir } = await usedDataDir();
    const file = join(dataDir, "registry.json");
    const doc = JSON.parse(readFileSync(file, "utf8"));
    doc.apis[1].config.validate = "sometimes";
    const bad = doc.apis[1];
    writeFileSync(file, JSON.stringify(doc));

    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: "registry.json", message: expect.stringContaining('"pets2" cannot be used: config.validate'), fix: expect.stringContaining("workbench api remove pets2") })]);
    const listed = cli(dataDir, "api", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^NAME .*\npetstore .*\npets2 {2}UNUSABLE: config\.validate: .*workbench api remove pets2\)\n$/s);
    expect(listed.stderr).toMatch(/^warning: registry\.json has an entry that cannot be used: "pets2" \(config\.validate.*kept as found.*registry\.json\.damaged-[0-9a-f]{12}\)\.\n$/);
    const ran = runProgram(dataDir);
    expect(ran.stderr).toContain('"pets2"');
    expect(cli(dataDir, "api", "list").code).toBe(0);
    expect(kept(dataDir, "registry.json.")).toHaveLength(1); // once, however many commands meet it
    expect(JSON.parse(readFileSync(file, "utf8")).apis[1]).toEqual(bad);

    expect(cli(dataDir, "api", "remove", "pets2")).toMatchObject({ code: 0, stdout: "removed pets2\n" });
    expect(cli(dataDir, "api", "list")).toMatchObject({ code: 0, stderr: "" });
    expect(doctor(dataDir).code).toBe(0);
  });

  it("registry.json that is not JSON any more is moved aside with its exact bytes, once", async () => {
    const { dataDir } = await usedDataDir();
    const damaged = damageMiddle(join(dataDir, "registry.json"));
    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: "registry.json", message: expect.stringMatching(/cannot be read: it is not valid JSON/) })]);
    const first = cli(dataDir, "api", "list");
    expect(first.stderr).toMatch(/^warning: registry\.json could not be read: it is not valid JSON .*It was moved to .*registry\.json\.unreadable-\S+ and the workbench started with no APIs\n/);
    const aside = kept(dataDir, "registry.json.unreadable-");
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dataDir, aside[0]!)).equals(damaged)).toBe(true);
    expect(cli(dataDir, "api", "list").stderr).toBe("");
    expect(kept(dataDir, "registry.json.")).toHaveLength(1);
    // The runs it made are all still there.
    expect(cli(dataDir, "runs", "list", "--json").stdout.trim().split("\n")).toHaveLength(40);
  });

  it("vault.json: a damaged item is kept and named while the others work; a file that is not JSON is kept aside", async () => {
    const { dataDir } = await usedDataDir();
    const file = join(dataDir, "vault.json");
    const doc = JSON.parse(readFileSync(file, "utf8"));
    doc.items.github.fields = "oops";
    writeFileSync(file, JSON.stringify(doc));
    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: "vault.json", message: 'the item "github" cannot be used: items.github.fields must be an object' })]);
    const listed = cli(dataDir, "vault", "list", "--json");
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ items: [{ name: "demo" }], notices: [expect.stringContaining('vault item "github"')] });
    const ran = runProgram(dataDir); // the demo API's token still opens
    expect(ran.code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).items.github).toEqual({ allowApis: ["pets2"], fields: "oops" });

    const damaged = damageMiddle(file, 4);
    const after = cli(dataDir, "vault", "list");
    expect(after.stderr).toMatch(/vault\.json was unreadable \(it is not valid JSON.*kept as .*vault\.json\.unreadable-/);
    expect(readFileSync(join(dataDir, kept(dataDir, "vault.json.unreadable-")[0]!)).equals(damaged)).toBe(true);
    for (const out of [listed, ran, after]) expect(out.stdout + out.stderr).not.toContain(CANARY);
  });

  it("programs.json with a damaged tab: the editor keeps the readable tabs, and doctor names the bad one", async () => {
    const { dataDir } = await usedDataDir();
    const file = join(dataDir, "programs.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"policy": "all"', '"policy": "sometimes"'));
    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: "programs.json", message: expect.stringMatching(/^editor tab 2 cannot be read \(policy: /) })]);
    const logged: string[] = [];
    expect(new ProgramsFile(dataDir, (m) => logged.push(m)).list()).toEqual([{ id: "a", name: "first", code: "async () => 1", policy: "read_only" }]);
    expect(logged).toEqual([expect.stringContaining("programs.json.damaged-")]);
    expect(readFileSync(join(dataDir, kept(dataDir, "programs.json.damaged-")[0]!), "utf8")).toContain('"sometimes"');
  });

  it("mcp.json that cannot be read is moved aside by serve, never overwritten, and serve says a new token was made", async () => {
    const { dataDir } = await usedDataDir();
    const damaged = damageMiddle(join(dataDir, "mcp.json"), 4);
    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: "mcp.json", message: expect.stringMatching(/cannot be read: it is not valid JSON/), fix: expect.stringContaining("new token") })]);
    const serve = await spawnServe(dataDir, ["--port", "0"]);
    try {
      expect(serve.stderr()).toMatch(/note: mcp\.json could not be read \(it is not valid JSON.*kept as .*mcp\.json\.unreadable-\S+ and a new MCP token was made/);
      const aside = kept(dataDir, "mcp.json.unreadable-");
      expect(readFileSync(join(dataDir, aside[0]!)).equals(damaged)).toBe(true);
      const token = JSON.parse(readFileSync(join(dataDir, "mcp.json"), "utf8")).token as string;
      const client = await httpMcpClient(serve.mcpUrl, token);
      const envelope = envelopeOf(await client.callTool({ name: "execute_api_code", arguments: { code: "async () => (await apis.petstore.listPets({})).status" } }));
      expect(envelope).toMatchObject({ status: "completed", result: 200 });
      await client.close();
    } finally {
      await serve.stop();
    }
  });

  it("a damaged serve lockfile is moved aside once, and the CLI works in-process meanwhile", async () => {
    const { dataDir } = await usedDataDir();
    writeFileSync(join(dataDir, LOCKFILE_NAME), '{"format": 1, "kind": "serve", "pid": 12', { mode: 0o600 });
    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: LOCKFILE_NAME, message: expect.stringContaining("cannot be read: it is not valid JSON") })]);
    const listed = cli(dataDir, "runs", "list", "--json");
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split("\n")).toHaveLength(40);
    expect(existsSync(join(dataDir, LOCKFILE_NAME))).toBe(false);
    expect(readFileSync(join(dataDir, kept(dataDir, `${LOCKFILE_NAME}.unreadable-`)[0]!), "utf8")).toBe('{"format": 1, "kind": "serve", "pid": 12');
    expect(doctor(dataDir).code).toBe(0);
  });

  it("a damaged parsed spec is rebuilt from its kept text; with the text gone too, doctor says how to get the API back", async () => {
    const { dataDir } = await usedDataDir();
    const registry = JSON.parse(readFileSync(join(dataDir, "registry.json"), "utf8"));
    const hash = registry.apis[0].specHash as string;
    damageMiddle(join(dataDir, "artifacts", `${hash}.json`));
    expect(doctor(dataDir).report.findings).toContainEqual(expect.objectContaining({ path: `artifacts/${hash}.json`, severity: "note", message: expect.stringContaining("rebuilt from the kept spec text") }));
    expect(JSON.parse(runProgram(dataDir).stdout)).toMatchObject({ status: "completed" });
    expect(doctor(dataDir).code).toBe(0); // rebuilt on that use

    damageMiddle(join(dataDir, "artifacts", `${hash}.json`));
    damageMiddle(join(dataDir, "artifacts", `${hash}.source`));
    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: `artifacts/${hash}.json`, message: expect.stringContaining("the API cannot be used"), fix: "workbench api remove petstore, then workbench api add petstore <spec>" })]);
  });

  it("runs.sqlite with damaged pages: the CLI says where and what to do, salvages every readable run, and doctor agrees", async () => {
    const { dataDir, runs } = await usedDataDir();
    const path = join(dataDir, "runs.sqlite");
    const bytes = readFileSync(path);
    const runPages = [...new Set([...bytes.toString("latin1").matchAll(/\/\/ run \d+: p/g)].map((m) => Math.floor(m.index / PAGE)))];
    const target = runPages[Math.floor(runPages.length / 2)]!;
    bytes.fill(0xa5, target * PAGE, (target + 1) * PAGE);
    writeFileSync(path, bytes);

    const before = doctor(dataDir);
    expect(before.code).toBe(1);
    expect(before.report.findings).toContainEqual(expect.objectContaining({ path: "runs.sqlite", severity: "problem", message: expect.stringMatching(/^the run store is damaged: /), fix: expect.stringContaining("copies every readable run") }));

    const listed = cli(dataDir, "runs", "list", "--json", "--limit", "100");
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(new RegExp(`^note: The run history at ${path} could not be opened: .*\\. (\\d+) of 40 runs \\(with .*\\) were recovered into a new run store\\. (\\d+) could not be read \\(run_.*\\)\\. The damaged file is kept as .*runs\\.sqlite\\.corrupt-\\S+\\. Run \`workbench doctor\``, "m"));
    const listedIds = listed.stdout.trim().split("\n").map((line) => JSON.parse(line).id as string);
    const [, copied, lost] = /(\d+) of 40 runs .* (\d+) could not be read/.exec(listed.stderr)!;
    expect(listedIds).toHaveLength(Number(copied));
    expect(Number(copied) + Number(lost)).toBe(40);
    expect(Number(lost)).toBeGreaterThan(0);
    // One salvaged run read back whole through the CLI (runs/salvage.test.ts compares every field of every run).
    const shown = JSON.parse(cli(dataDir, "runs", "show", listedIds[0]!, "--json").stdout);
    expect(shown.run).toMatchObject({ id: listedIds[0], program: runs.find((r) => r.id === listedIds[0])!.program, status: "completed" });
    expect(readFileSync(join(dataDir, kept(dataDir, "runs.sqlite.corrupt-").find((f) => !/-(wal|shm)$/.test(f))!)).equals(bytes)).toBe(true);
    expect(cli(dataDir, "runs", "list").stderr).toBe(""); // once
    expect(doctor(dataDir).code).toBe(0);
  });

  it("runs.sqlite with damaged pages, met by serve first: it salvages the same way, and an agent reads a salvaged run over MCP", async () => {
    const { dataDir, runs } = await usedDataDir();
    const path = join(dataDir, "runs.sqlite");
    const bytes = readFileSync(path);
    const page = Math.floor(bytes.indexOf("// run 20: p") / PAGE);
    bytes.fill(0xa5, page * PAGE, (page + 1) * PAGE);
    writeFileSync(path, bytes);
    const serve = await spawnServe(dataDir, ["--port", "0"]);
    try {
      expect(serve.stderr()).toMatch(/note: The run history at .* could not be opened: .* of 40 runs .* were recovered into a new run store\..*Run `workbench doctor`/);
      const token = JSON.parse(readFileSync(join(dataDir, "mcp.json"), "utf8")).token as string;
      const client = await httpMcpClient(serve.mcpUrl, token);
      const survivor = runs[0]!;
      const got = envelopeOf(await client.callTool({ name: "get_code_run", arguments: { run: survivor.id } }));
      expect(got).toMatchObject({ run: survivor.id, status: "completed", result: 200 });
      await client.close();
    } finally {
      await serve.stop();
    }
  });

  it("doctor --repair salvages a store whose index disagrees with its table (which only the thorough check sees)", async () => {
    const { dataDir } = await usedDataDir();
    const path = join(dataDir, "runs.sqlite");
    // Rename one run's id inside the index on runs.id only: every page stays well-formed.
    const db = new DatabaseSync(path);
    const victim = (db.prepare("SELECT id FROM runs ORDER BY seq LIMIT 1 OFFSET 5").get() as { id: string }).id;
    db.close();
    const bytes = readFileSync(path);
    const hits = [...bytes.toString("latin1").matchAll(new RegExp(victim, "g"))].map((m) => m.index);
    const inIndex = hits.find((at) => !bytes.subarray(Math.floor(at / PAGE) * PAGE, (Math.floor(at / PAGE) + 1) * PAGE).includes("// run "));
    expect(inIndex).toBeDefined();
    bytes.write("Z", inIndex! + victim.length - 1, "latin1");
    writeFileSync(path, bytes);

    expect(problems(dataDir)).toEqual([expect.objectContaining({ path: "runs.sqlite", message: expect.stringMatching(/integrity check/) })]);
    const repaired = cli(dataDir, "doctor", "--repair");
    expect(repaired.stdout).toMatch(/Repaired:\n {2}- The run history at .* 40 of 40 runs .* were recovered into a new run store\./);
    expect(repaired.code).toBe(0);
    expect(JSON.parse(cli(dataDir, "runs", "show", victim, "--json").stdout).run.id).toBe(victim);
  });
});
