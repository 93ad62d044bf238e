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

  it("api set reaches every option, and programs feel each one", async () => {
    const env = { WORKBENCH_VAULT_KEY: Buffer.alloc(32, 4).toString("base64") };
    const set = await run(["api", "set", "petstore", "--idempotency-header", "Idempotency-Key", "--response-headers", "content-length", "--passthrough-headers", "x-trace",
      "--context", '{"org": "acme"}', "--validate", "off", "--timeout-ms", "5000", "--max-response-bytes", "65536", "--client-id", "demo-client", "--scopes", "pets:read,pets:write", "--data-dir", dataDir], { env });
    expect(set).toMatchObject({ code: 0, stderr: "" });
    expect(set.stdout).toContain("  idempotency header:  Idempotency-Key\n");
    const shown = JSON.parse((await run(["api", "show", "petstore", "--json", "--data-dir", dataDir], { env })).stdout);
    expect(shown.config).toEqual({
      auth: { scheme: "bearerAuth", credential: "vault:demo/token", username: "demo-client", scopes: ["pets:read", "pets:write"] },
      sandboxGlobals: { org: "acme" },
      validate: "off",
      timeoutMs: 5000,
      maxResponseBytes: 65536,
      passthroughHeaders: ["x-trace"],
      autoIdempotencyHeader: "Idempotency-Key",
      responseHeaders: ["content-length"],
    });
    const program = `const list = await apis.petstore.listPets({ limit: 1, headers: { "x-trace": "t-1" } });
      const made = await apis.petstore.createPet({ body: {} });
      return { org: context.petstore.org, length: typeof list.headers["content-length"], invalidSentAnyway: made.status };`;
    const out = JSON.parse((await run(["run", "--code", "-", "--policy", "all", "--yes", "--data-dir", dataDir], { env, stdin: program })).stdout);
    expect(out).toMatchObject({ status: "completed", result: { org: "acme", length: "string", invalidSentAnyway: 400 } });
    expect(out.calls[1].idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    const detail = JSON.parse((await run(["runs", "show", out.run, "--json", "--data-dir", dataDir], { env })).stdout);
    expect(detail.calls[0].request.headers["x-trace"]).toBe("t-1");
    expect(detail.calls[1].request.headers["idempotency-key"]).toBe(out.calls[1].idempotency_key);

    // "" clears an option; --no-auth removes authentication; bounds and shapes are checked before anything is written.
    await run(["api", "set", "petstore", "--idempotency-header", "", "--context", "{}", "--no-auth", "--data-dir", dataDir], { env });
    const cleared = JSON.parse((await run(["api", "show", "petstore", "--json", "--data-dir", dataDir], { env })).stdout).config;
    expect(cleared).not.toHaveProperty("autoIdempotencyHeader");
    expect(cleared).not.toHaveProperty("sandboxGlobals");
    expect(cleared).not.toHaveProperty("auth");
    const refusals: [string[], RegExp][] = [
      [["--timeout-ms", "5"], /argument '5' is invalid\. must be a whole number from 100 to 600,000 \(ms\)/],
      [["--context", "[1]"], /must be a JSON object/],
      [["--validate", "sometimes"], /Allowed choices are strict, warn, off/],
      [["--idempotency-header", "not a header"], /autoIdempotencyHeader: must be an HTTP header name/],
      [["--credential", "hunter2"], /--credential must be a vault reference/],
      [["--auth-inline", "digest"], /expected bearer, basic, header:<Name>/],
    ];
    for (const [flags, message] of refusals) {
      const refused = await run(["api", "set", "petstore", ...flags, "--data-dir", dataDir], { env });
      expect(refused.code, flags.join(" ")).toBe(1);
      expect(refused.stderr, flags.join(" ")).toMatch(message);
    }
    expect((await run(["api", "set", "nope", "--validate", "warn", "--data-dir", dataDir], { env })).stderr).toBe('error: no API named "nope" is registered\n');
  });

  it("an inline scheme from the command line, for a spec that declares none", async () => {
    const spec = join(dataDir, "bare.json");
    writeFileSync(spec, JSON.stringify({ openapi: "3.0.3", info: { title: "Bare", version: "1" }, servers: [{ url: "https://bare.example.com" }], paths: { "/x": { get: { operationId: "getX", responses: { "200": { description: "ok" } } } } } }));
    expect((await run(["api", "add", "bare", spec, "--credential", "vault:bare/key", "--data-dir", dataDir])).stderr).toMatch(/--auth-inline/);
    expect((await run(["api", "add", "bare", spec, "--auth-inline", "header:X-Api-Key", "--credential", "vault:bare/key", "--data-dir", dataDir])).code).toBe(0);
    expect(JSON.parse((await run(["api", "show", "bare", "--json", "--data-dir", dataDir])).stdout).config.auth).toEqual({ inline: { type: "apiKey", in: "header", name: "X-Api-Key" }, credential: "vault:bare/key" });
    expect((await run(["api", "show", "bare", "--data-dir", dataDir])).stdout).toContain("  auth:                inline header:X-Api-Key with vault:bare/key\n");
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
    for (const argv of [["api", "--help"], ["api", "add", "--help"], ["api", "set", "--help"], ["api", "show", "--help"], ["api", "list", "--help"], ["api", "remove", "--help"], ["--help"]]) {
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
    const set = spawnSync(process.execPath, [join(repo, "bin/workbench.js"), "api", "set", "petstore", "--validate", "warn", "--data-dir", dataDir], { encoding: "utf8" });
    expect(set.status).toBe(0);
    expect(set.stdout).toContain("  validate:            warn\n");
    const version = spawnSync(process.execPath, [join(repo, "bin/workbench.js"), "--version"], { encoding: "utf8" });
    expect(version).toMatchObject({ status: 0, stdout: `${JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version}\n`, stderr: "" });
  });
});
