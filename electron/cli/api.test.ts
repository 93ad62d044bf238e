import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../cli.ts";
import type { CliIo } from "./io.ts";

const repo = resolve(import.meta.dirname, "../..");
const swagger2 = join(repo, "electron/host/specs/fixtures/swagger2-petstore.json");
const goSwagger = join(repo, "electron/host/specs/fixtures/go-swagger-todos.yaml");

async function run(argv: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), readStdin: async () => options.stdin ?? "", env: options.env ?? {}, exit: () => {} };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "wb-cli-api-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("workbench api", () => {
  it("starts a new data directory with the demo API", async () => {
    const { code, stdout } = await run(["api", "list", "--data-dir", dataDir]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      "NAME      TITLE                 OPERATIONS  BASE URL                      AUTH\n" +
        "petstore  Demo Pet Store 1.0.0  10          demo server (started on use)  bearerAuth vault:demo/token\n",
    );
  });

  it("adds an API with a base URL, a scheme and a vault credential, and lists it", async () => {
    const added = await run(["api", "add", "pets", swagger2, "--auth-scheme", "api_key", "--credential", "vault:pets/key", "--base-url", "http://127.0.0.1:9999/v2", "--data-dir", dataDir]);
    expect(added).toEqual({
      code: 0,
      stdout:
        "added pets: Swagger Petstore 1.0.7, 7 operations\n" +
        "  calls go to http://127.0.0.1:9999/v2\n" +
        "  auth: api_key with vault:pets/key\n" +
        "  the vault item must allow this API: workbench vault allow-apis pets pets\n" +
        `  1 repair warning: workbench ingest ${swagger2} lists them\n`,
      stderr: "",
    });
    const listed = JSON.parse((await run(["api", "list", "--json", "--data-dir", dataDir])).stdout);
    expect(listed.map((a: { name: string }) => a.name)).toEqual(["petstore", "pets"]);
    expect(listed[1]).toMatchObject({ source: { kind: "file", path: swagger2 }, baseUrl: "http://127.0.0.1:9999/v2", config: { auth: { scheme: "api_key", credential: "vault:pets/key" } } });
  });

  it("takes the spec's only scheme when just a credential is given", async () => {
    const { code, stderr } = await run(["api", "add", "todos", goSwagger, "--base-url", "https://todo.example.com/api/v1", "--credential", "vault:todo/token", "--data-dir", dataDir]);
    expect(code).toBe(0);
    expect(stderr).toBe("note: using the spec's only security scheme, key\n");
  });

  it("refuses what it cannot register, saying why", async () => {
    const cases: [string[], string][] = [
      [["api", "add", "my-api", swagger2], 'error: "my-api" is not a JavaScript identifier (letters, digits, _ and $, not starting with a digit); it becomes apis.<name> in programs, so try "my_api"\n'],
      [["api", "add", "2fast", swagger2], 'error: "2fast" starts with a digit; an API name must be a JavaScript identifier (it becomes apis.<name> in programs)\n'],
      [["api", "add", "pets", swagger2, "--auth-scheme", "oauth"], 'error: the spec has no security scheme "oauth"; it defines "api_key", "petstore_auth"\n'],
      [["api", "add", "pets", swagger2, "--credential", "hunter2"], 'error: --credential must be a vault reference like vault:github/token, not "hunter2" (store the secret with: workbench vault set <item>/<field> --stdin)\n'],
      [["api", "add", "pets", swagger2, "--credential", "vault:pets/key"], "error: the spec has several security schemes; pick one with --auth-scheme (api_key, petstore_auth)\n"],
      [["api", "add", "pets", swagger2, "--base-url", "not a url"], "error: baseUrl: \"not a url\" is not a URL\n"],
      [["api", "add", "todos", goSwagger], "error: the spec's server URL /api/v1 is relative and the spec did not come from a URL to resolve it against; give a base URL (--base-url https://...)\n"],
      [["api", "add", "petstore", swagger2], 'error: an API named "petstore" is already registered; remove it first or pick another name\n'],
      [["api", "add", "pets", join(dataDir, "nope.json")], `error: ${join(dataDir, "nope.json")}: no such file: ${join(dataDir, "nope.json")}\n`],
      [["api", "remove", "nope"], 'error: no API named "nope" is registered\n'],
    ];
    for (const [argv, message] of cases) {
      const result = await run([...argv, "--data-dir", dataDir]);
      expect(result, argv.join(" ")).toEqual({ code: 1, stdout: "", stderr: message });
    }
  });

  it("refuses an unusable spec and points at ingest for the details", async () => {
    const bad = join(dataDir, "bad.json");
    writeFileSync(bad, '{"swagger": "1.2"}');
    expect(await run(["api", "add", "bad", bad, "--data-dir", dataDir])).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: ${bad} is not a usable spec: Swagger 1.2 is not supported; the workbench reads Swagger 2.0 and OpenAPI 3.0 and 3.1 at /swagger (workbench ingest ${bad} shows the details)\n`,
    });
  });

  it("adds from stdin and removes; a removed demo API stays removed", async () => {
    expect((await run(["api", "add", "pets", "-", "--data-dir", dataDir], { stdin: readFileSync(swagger2, "utf8") })).code).toBe(0);
    expect(await run(["api", "remove", "petstore", "--data-dir", dataDir])).toEqual({ code: 0, stdout: "removed petstore\n", stderr: "" });
    expect(JSON.parse((await run(["api", "list", "--json", "--data-dir", dataDir])).stdout).map((a: { name: string }) => a.name)).toEqual(["pets"]);
    await run(["api", "remove", "pets", "--data-dir", dataDir]);
    expect((await run(["api", "list", "--data-dir", dataDir])).stdout).toBe("no APIs registered; add one with: workbench api add <name> <file|url>\n");
  });

  it("uses WORKBENCH_DATA_DIR when no --data-dir is given, and warns about a damaged registry", async () => {
    writeFileSync(join(dataDir, "registry.json"), "{oops");
    const { code, stdout, stderr } = await run(["api", "list"], { env: { WORKBENCH_DATA_DIR: dataDir } });
    expect(code).toBe(0);
    expect(stdout).toContain("no APIs registered");
    expect(stderr).toMatch(/^warning: registry.json could not be read: it is not valid JSON .* It was moved to .*registry\.json\.unreadable-.* and the workbench started with no APIs\n$/);
  });

  it("explains every command with --help", async () => {
    for (const argv of [["api", "--help"], ["api", "add", "--help"], ["api", "list", "--help"], ["api", "remove", "--help"], ["--help"]]) {
      const { code, stdout } = await run(argv);
      expect(code, argv.join(" ")).toBe(0);
      expect(stdout, argv.join(" ")).toMatch(/^Usage: workbench/);
    }
    expect((await run(["api", "add", "--help"])).stdout).toContain("--credential <vault:item/field>");
    expect((await run(["--help"])).stdout).toMatch(/ingest \[options\] <specs\.\.\.>/);
  });

  it("runs as a real process through bin/workbench.js", () => {
    const child = spawnSync(process.execPath, [join(repo, "bin/workbench.js"), "api", "add", "bad-name", swagger2, "--data-dir", dataDir], { encoding: "utf8" });
    expect(child.status).toBe(1);
    expect(child.stderr).toMatch(/^error: "bad-name" is not a JavaScript identifier/);
    expect(child.stderr).not.toMatch(/\n\s+at /);
  });
});
