import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../cli.ts";
import type { CliIo } from "./io.ts";

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

const dataDir = mkdtempSync(join(tmpdir(), "workbench-run-data-"));
const env = { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_VAULT_KEY: Buffer.alloc(32, 3).toString("base64") };

async function run(argv: string[], stdin = ""): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readStdin: async () => stdin,
    env,
    exit: () => {},
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

function programFile(code: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "workbench-run-")), "program.ts");
  writeFileSync(file, code);
  return file;
}

describe("workbench run", () => {
  it("prints the envelope of a completed run, keys in order", async () => {
    const out = await run(["run", "--code", programFile("const pets: string[] = ['cat'];\nconsole.log('counting');\nreturn { count: pets.length }")]);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe("");
    const envelope = JSON.parse(out.stdout);
    expect(Object.keys(envelope)).toEqual(["run", "status", "calls", "logs", "result"]);
    expect(envelope).toMatchObject({ status: "completed", calls: [], logs: ["counting"], result: { count: 1 } });
    expect(envelope.run).toMatch(/^run_[0-9a-z]+$/);
  });

  it("reads the program from stdin with --code -", async () => {
    const out = await run(["run", "--code", "-"], "async () => 6 * 7");
    expect(JSON.parse(out.stdout)).toMatchObject({ status: "completed", result: 42 });
  });

  it("exits 0 with a failed envelope when the program fails", async () => {
    const out = await run(["run", "--code", "-"], "const a = 1;\nnull.x");
    expect(out.code).toBe(0);
    const envelope = JSON.parse(out.stdout);
    expect(Object.keys(envelope)).toEqual(["run", "status", "calls", "logs", "error"]);
    expect(envelope.error).toMatchObject({ reason: "Error", name: "TypeError" });
    expect(envelope.error.message).toMatch(/\(line 2, column \d+\)$/);
  });

  it("applies --timeout-ms, --memory-mb and --wall-ms", async () => {
    const timeout = JSON.parse((await run(["run", "--code", "-", "--timeout-ms", "150"], "while (true) {}")).stdout);
    expect(timeout.error).toEqual({ reason: "Timeout", name: "Timeout", message: "the program used more than 150 ms of compute time" });
    const memory = JSON.parse((await run(["run", "--code", "-", "--memory-mb", "24"], "const k = []; for (;;) k.push(new ArrayBuffer(1 << 20))")).stdout);
    expect(memory.error).toMatchObject({ reason: "Memory", message: "out of memory: the run may use at most 24 MiB" });
    const wall = JSON.parse((await run(["run", "--code", "-", "--wall-ms", "200"], "return new Array(1e9).join('').length")).stdout);
    expect(wall.error).toMatchObject({ reason: "Timeout", message: "the run took longer than 200 ms of wall-clock time" });
    const output = JSON.parse((await run(["run", "--code", "-", "--max-output-kb", "1"], "return 'x'.repeat(2048)")).stdout);
    expect(output.error).toMatchObject({ reason: "OutputTooLarge" });
    const calls = JSON.parse((await run(["run", "--code", "-", "--max-calls", "0"], "return (await apis.petstore.listPets({})).status")).stdout);
    expect(calls.error).toMatchObject({ reason: "CallLimit" });
  });

  it("calls the demo API, and a raw host call with a made-up name is refused", async () => {
    const out = await run(["run", "--code", "-"], "const r = await apis.petstore.listPets({ limit: 1 }); return r.body.items.length");
    const envelope = JSON.parse(out.stdout);
    expect(envelope).toMatchObject({ status: "completed", result: 1, calls: [{ index: 0, api: "petstore", operation: "GET /pets", status: 200 }] });
    const raw = JSON.parse((await run(["run", "--code", "-"], "return await __host.call('petstore.listPets', {})")).stdout);
    const refusal = { name: "CallRejected", message: '"petstore.listPets" is not an API call (calls are apis.<api>.<operation>(...)); nothing was sent' };
    expect(raw.error).toMatchObject(refusal);
    // ...and recorded like any call the program attempted.
    expect(raw.calls).toEqual([expect.objectContaining({ index: 0, operation: "petstore.listPets", status: "rejected", error: refusal })]);
  });

  it("--policy all stops at a write; approve and deny continue the run", async () => {
    const program = "try { const r = await apis.petstore.createPet({ body: { name: 'Nova' } }); return r.status } catch (e) { return e.name + ': ' + e.message }";
    const pending = JSON.parse((await run(["run", "--code", "-", "--policy", "all"], program)).stdout);
    expect(pending).toMatchObject({ status: "pending", pending: { call: 0, operation: "POST /pets", method: "POST", waiting_for: "approval" } });
    // The person sees where the credential goes, by reference.
    const shownRun = JSON.parse((await run(["runs", "show", pending.run, "--json"])).stdout);
    expect(shownRun.pending.request.headers.authorization).toBe("Bearer ⟦vault:demo/token⟧");
    const approved = await run(["approve", pending.run]);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: "completed", result: 201, calls: [{ status: 201, decision: "approved" }] });
    const again = await run(["approve", pending.run]);
    expect(again).toMatchObject({ code: 1, stderr: `error: run ${pending.run} is completed, not waiting for a decision\n` });

    const second = JSON.parse((await run(["run", "--code", "-", "--policy", "all"], program)).stdout);
    const denied = JSON.parse((await run(["deny", second.run, "--message", "not today"])).stdout);
    expect(denied.result).toBe("CallDenied: A person denied this call: not today");

    const list = await run(["runs", "list", "--status", "completed", "--json"]);
    const ids = list.stdout.trim().split("\n").map((line) => JSON.parse(line).id);
    expect(ids).toEqual(expect.arrayContaining([pending.run, second.run]));
    const shown = await run(["runs", "show", pending.run]);
    expect(shown.stdout).toContain("calls (1):");
    expect(shown.stdout).toContain("POST /pets  201");
    const har = JSON.parse((await run(["runs", "export", pending.run, "--har"])).stdout);
    expect(har.log.version).toBe("1.2");
    expect(har.log.entries[0].request.method).toBe("POST");
  });

  it("--yes approves the writes of this run up front; --yes needs --policy all", async () => {
    const out = JSON.parse((await run(["run", "--code", "-", "--policy", "all", "--yes"], "return (await apis.petstore.createPet({ body: { name: 'Yes' } })).status")).stdout);
    expect(out).toMatchObject({ status: "completed", result: 201, calls: [{ decision: "approved" }] });
    const wrong = await run(["run", "--code", "-", "--yes"], "return 1");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/--yes only makes sense with --policy all/);
  });

  it("read_only refuses a write without sending it", async () => {
    const out = JSON.parse((await run(["run", "--code", "-"], "try { await apis.petstore.deletePet({ petId: 1 }) } catch (e) { return e.name }")).stdout);
    expect(out).toMatchObject({ result: "CallRejected", calls: [{ status: "rejected", error: { name: "CallRejected" } }] });
  });

  it("exits 1 with a clear error for a missing program file or a bad flag", async () => {
    const missing = await run(["run", "--code", "/nonexistent/program.js"]);
    expect(missing).toEqual({ code: 1, stdout: "", stderr: "error: cannot read program file /nonexistent/program.js: ENOENT\n" });
    const small = await run(["run", "--code", "-", "--memory-mb", "8"], "return 1");
    expect(small.code).toBe(1);
    expect(small.stderr).toContain("--memory-mb <N>' argument '8' is invalid. must be a whole number from 16 to 4,096 (MiB)");
    const word = await run(["run", "--code", "-", "--timeout-ms", "soon"], "return 1");
    expect(word.code).toBe(1);
    expect(word.stderr).toContain("must be a whole number from 10 to 600,000 (ms)");
    // Refused before anything runs: no failed run is stored.
    const huge = await run(["run", "--code", "-", "--memory-mb", "100000"], "return 1");
    expect(huge).toMatchObject({ code: 1, stdout: "" });
    expect(huge.stderr).toContain("argument '100000' is invalid. must be a whole number from 16 to 4,096 (MiB)");
    for (const [flag, value] of [["--wall-ms", "5"], ["--max-calls", "10001"], ["--max-output-kb", "0"], ["--max-result-tokens", "99"], ["--max-result-tokens", "-1"]]) {
      const bad = await run(["run", "--code", "-", flag!, value!], "return 1");
      expect(bad.code, `${flag} ${value}`).toBe(1);
      expect(bad.stderr, `${flag} ${value}`).toMatch(/is invalid\. must be a whole number from/);
    }
  });

  it("works as a real process: node bin/workbench.js run", () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const child = spawnSync(process.execPath, ["bin/workbench.js", "run", "--code", "-", "--data-dir", dataDir], { cwd: root, input: "return [Date.now() > 0, 'ok']", encoding: "utf8", timeout: 30_000, env: { ...process.env, ...env } });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ status: "completed", result: [true, "ok"] });
  });
});
