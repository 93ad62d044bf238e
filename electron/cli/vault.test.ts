import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../cli.ts";
import type { CliIo } from "./io.ts";

const CANARY = "canary-cli-4be7f0d2-secret";

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readStdin: async () => options.stdin ?? "",
    env: options.env ?? {},
    exit: () => {},
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** Everything the data dir holds, as text, to prove the canary never lands there. */
function everythingStored(dir: string): string {
  return readdirSync(dir).map((name) => readFileSync(join(dir, name), "utf8")).join("\n");
}

const tempDir = () => mkdtempSync(join(tmpdir(), "vault-cli-"));

describe("workbench vault", () => {
  it("sets from an environment variable and from stdin, lists names only", async () => {
    const dir = tempDir();
    const outputs: Captured[] = [];
    outputs.push(await run(["vault", "set", "github/token", "--env", "GH_TOKEN", "--allow-api", "github", "--allow-api", "gists", "--data-dir", dir], { env: { GH_TOKEN: CANARY } }));
    expect(outputs.at(-1)).toEqual({ code: 0, stdout: "stored github/token; github may be sent to: gists, github\n", stderr: "" });
    outputs.push(await run(["vault", "set", "github/password", "--stdin", "--data-dir", dir], { stdin: `${CANARY}-2\n` }));
    expect(outputs.at(-1)!.code).toBe(0);

    outputs.push(await run(["vault", "list", "--data-dir", dir]));
    expect(outputs.at(-1)!.stdout).toBe("github  (may be sent to: gists, github)\n  password\n  token\n");
    outputs.push(await run(["vault", "list", "--json"], { env: { WORKBENCH_DATA_DIR: dir } }));
    expect(JSON.parse(outputs.at(-1)!.stdout)).toEqual({
      items: [{ name: "github", allowApis: ["gists", "github"], fields: [{ name: "password" }, { name: "token" }] }],
      notices: [],
    });

    for (const output of outputs) expect(output.stdout + output.stderr).not.toContain(CANARY);
    expect(everythingStored(dir)).not.toContain(CANARY);
  });

  it("strips exactly one trailing newline from stdin", async () => {
    const dir = tempDir();
    await run(["vault", "set", "a/b", "--stdin", "--data-dir", dir], { stdin: "  spaced value \n\n" });
    const { Vault } = await import("../host/vault/vault.ts");
    const opened = Vault.open(dir, { env: {} });
    expect(opened.ok && opened.vault.reveal("a", "b")).toEqual({ ok: true, value: "  spaced value \n" });
  });

  it("refuses a value given on the command line without echoing it", async () => {
    const dir = tempDir();
    for (const argv of [
      ["vault", "set", "github/token", CANARY, "--data-dir", dir],
      ["vault", "set", "github/token", `--value=${CANARY}`, "--data-dir", dir],
      ["vault", "set", "github/token", "--stdin", CANARY, "--data-dir", dir],
    ]) {
      const result = await run(argv, { stdin: "from-stdin-value" });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/never as an argument.*nothing was stored/);
      expect(result.stdout + result.stderr).not.toContain(CANARY);
    }
    expect((await run(["vault", "list", "--data-dir", dir])).stdout).toMatch(/is empty/);
  });

  it("explains missing or conflicting value sources", async () => {
    const dir = tempDir();
    expect(await run(["vault", "set", "github/token", "--data-dir", dir])).toMatchObject({ code: 1, stderr: "error: give the value with exactly one of --stdin or --env VAR\n" });
    expect(await run(["vault", "set", "github/token", "--stdin", "--env", "X", "--data-dir", dir])).toMatchObject({ code: 1, stderr: expect.stringMatching(/exactly one of/) });
    expect(await run(["vault", "set", "github/token", "--env", "NOPE", "--data-dir", dir])).toMatchObject({ code: 1, stderr: "error: the environment variable NOPE is not set\n" });
    expect(await run(["vault", "set", "github/token", "--stdin", "--data-dir", dir], { stdin: "\n" })).toMatchObject({ code: 1, stderr: expect.stringMatching(/stdin was empty/) });
    expect(await run(["vault", "set", "github", "--stdin", "--data-dir", dir], { stdin: CANARY })).toMatchObject({ code: 1, stderr: expect.stringMatching(/expected item\/field/) });
    const badName = await run(["vault", "set", "git hub/token", "--stdin", "--data-dir", dir], { stdin: CANARY });
    expect(badName).toMatchObject({ code: 1, stderr: expect.stringMatching(/may contain only letters/) });
    expect(badName.stderr).not.toContain(CANARY);
  });

  it("removes fields and items, and changes allowed APIs", async () => {
    const dir = tempDir();
    const env = { WORKBENCH_DATA_DIR: dir, V: CANARY };
    await run(["vault", "set", "github/token", "--env", "V"], { env });
    await run(["vault", "set", "github/user", "--env", "V"], { env });
    expect(await run(["vault", "allow-apis", "github", "github", "petstore"], { env })).toMatchObject({ code: 0, stdout: "github may be sent to: github, petstore\n" });
    expect(await run(["vault", "remove", "github/user"], { env })).toMatchObject({ code: 0, stdout: "removed github/user\n" });
    expect(await run(["vault", "remove", "github/user"], { env })).toMatchObject({ code: 1, stderr: "error: the vault has no field github/user\n" });
    expect(await run(["vault", "remove", "github"], { env })).toMatchObject({ code: 0, stdout: "removed item github\n" });
    expect(await run(["vault", "allow-apis", "github"], { env })).toMatchObject({ code: 1, stderr: 'error: the vault has no item "github"\n' });
  });

  it("refuses a key file others can read, saying how to fix it", async () => {
    const dir = tempDir();
    await run(["vault", "set", "github/token", "--env", "V", "--data-dir", dir], { env: { V: CANARY } });
    chmodSync(join(dir, "vault.key"), 0o644);
    const result = await run(["vault", "list", "--data-dir", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error: the vault key file ${join(dir, "vault.key")} can be read by other users (mode 0644); it must be owner-only. Fix it with: chmod 600 '${join(dir, "vault.key")}'\n`);
  });

  it("reports values it cannot decrypt with the current key, and keeps them", async () => {
    const dir = tempDir();
    const keyA = { WORKBENCH_VAULT_KEY: Buffer.alloc(32, 1).toString("base64"), V: CANARY };
    const keyB = { WORKBENCH_VAULT_KEY: Buffer.alloc(32, 2).toString("base64"), V: `${CANARY}-b` };
    await run(["vault", "set", "github/token", "--env", "V", "--data-dir", dir], { env: keyA });
    const set = await run(["vault", "set", "github/user", "--env", "V", "--data-dir", dir], { env: keyB });
    expect(set.stderr).toMatch(/warning: 1 other value\(s\) cannot be decrypted here and were kept as they are: github\/token/);
    const list = await run(["vault", "list", "--data-dir", dir], { env: keyB });
    expect(list.stdout).toMatch(/ {2}token {2}! cannot decrypt: it was sealed with another key/);
    expect(list.stdout + list.stderr + set.stdout + set.stderr).not.toContain(CANARY);
    expect((await run(["vault", "list", "--json", "--data-dir", dir], { env: keyA })).stdout).toContain('"name": "token"\n');
  });

  it("runs as a real command: bin/workbench.js", () => {
    const dir = tempDir();
    const bin = resolve(import.meta.dirname, "../../bin/workbench.js");
    const env = { ...process.env, WORKBENCH_DATA_DIR: dir, WORKBENCH_VAULT_KEY: "", SECRET_IN_ENV: CANARY };
    const set = spawnSync(process.execPath, [bin, "vault", "set", "demo/key", "--env", "SECRET_IN_ENV", "--allow-api", "demo"], { env, encoding: "utf8" });
    expect({ status: set.status, stdout: set.stdout, stderr: set.stderr }).toEqual({ status: 0, stdout: "stored demo/key; demo may be sent to: demo\n", stderr: "" });
    const piped = spawnSync(process.execPath, [bin, "vault", "set", "demo/other", "--stdin"], { env, input: `${CANARY}-piped\n`, encoding: "utf8" });
    expect(piped.status).toBe(0);
    const list = spawnSync(process.execPath, [bin, "vault", "list"], { env, encoding: "utf8" });
    expect(list.stdout).toBe("demo  (may be sent to: demo)\n  key\n  other\n");
    for (const result of [set, piped, list]) expect(result.stdout + result.stderr).not.toContain(CANARY);
    expect(everythingStored(dir)).not.toContain(CANARY);
  });
});
