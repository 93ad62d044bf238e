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

async function run(argv: string[], stdin = ""): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readStdin: async () => stdin,
    env: {},
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
    expect(envelope.run).toMatch(/^run_[0-9a-f]{16}$/);
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
  });

  it("a program that calls an API fails with a clear message", async () => {
    const out = await run(["run", "--code", "-"], "return await apis.petstore.listPets()");
    expect(JSON.parse(out.stdout).error).toEqual({
      reason: "Error",
      name: "Error",
      message: "apis.petstore: `workbench run` cannot call APIs yet: it runs programs that make no API calls (line 1, column 18)",
    });
    const raw = await run(["run", "--code", "-"], "return await __host.call('petstore.listPets', {})");
    expect(JSON.parse(raw.stdout).error).toMatchObject({ name: "CallRejected", message: expect.stringContaining("cannot call APIs yet") });
  });

  it("exits 1 with a clear error for a missing program file or a bad flag", async () => {
    const missing = await run(["run", "--code", "/nonexistent/program.js"]);
    expect(missing).toEqual({ code: 1, stdout: "", stderr: "error: cannot read program file /nonexistent/program.js: ENOENT\n" });
    const small = await run(["run", "--code", "-", "--memory-mb", "8"], "return 1");
    expect(small.code).toBe(1);
    expect(small.stderr).toContain("--memory-mb <N>' argument '8' is invalid. must be a whole number of at least 16");
    const word = await run(["run", "--code", "-", "--timeout-ms", "soon"], "return 1");
    expect(word.code).toBe(1);
    expect(word.stderr).toContain("must be a whole number above 0");
  });

  it("works as a real process: node bin/workbench.js run", () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const child = spawnSync(process.execPath, ["bin/workbench.js", "run", "--code", "-"], { cwd: root, input: "return [Date.now() > 0, 'ok']", encoding: "utf8", timeout: 30_000 });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ status: "completed", result: [true, "ok"] });
  });
});
