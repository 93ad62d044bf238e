import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { main } from "../cli.ts";
import type { CliIo } from "./io.ts";

const repo = resolve(import.meta.dirname, "../..");
const demoSpec = join(repo, "specs/demo/petstore.yaml");
const swagger2 = join(repo, "electron/host/specs/fixtures/swagger2-petstore.json");
const messy = join(repo, "electron/host/specs/fixtures/messy-3.0.yaml");

async function run(argv: string[], stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), readStdin: async () => stdin, env: {}, exit: () => {} };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "wb-cli-ingest-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/openapi.yaml") res.writeHead(200, { "content-type": "application/yaml" }).end(readFileSync(demoSpec));
    else res.writeHead(500).end("broken");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe("workbench ingest", () => {
  it("summarises a clean spec in one line", async () => {
    expect(await run(["ingest", demoSpec, "--data-dir", dataDir])).toEqual({
      code: 0,
      stdout: `${demoSpec}: Demo Pet Store 1.0.0 (OpenAPI 3.1.0), 10 operations, no repairs needed\n`,
      stderr: "",
    });
  });

  it("lists every repair, grouped by kind, with its pointer", async () => {
    const { code, stdout } = await run(["ingest", swagger2, messy, "--data-dir", dataDir]);
    expect(code).toBe(0);
    expect(stdout).toContain(`${swagger2}: Swagger Petstore 1.0.7 (Swagger 2.0, upgraded to OpenAPI 3.0), 7 operations, 1 warning\n  upgraded-swagger-2 (1):\n    (document): Swagger 2.0 upgraded`);
    expect(stdout).toContain(`${messy}: Messy API 2 (OpenAPI 3.0.1), 5 operations, 23 warnings\n  dropped-field (7):\n`);
    expect(stdout).toContain('    /paths/items~1{itemId}/delete/operationId: operationId "getItem" is already used by GET /items/{itemId}; call this one as deleteItemsById\n');
    expect(stdout.match(/^ {4}\//gm)).toHaveLength(23);
  });

  it("prints one JSON object per spec with --json, and exits 1 when any spec is unusable", async () => {
    const bad = join(dataDir, "bad.yaml");
    writeFileSync(bad, "openapi: 3.0.0\npaths:\n\t/x: {}\n");
    const { code, stdout, stderr } = await run(["ingest", demoSpec, bad, join(dataDir, "missing.json"), "--json", "--data-dir", dataDir]);
    expect(code).toBe(1);
    expect(stderr).toBe("");
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { source: demoSpec, ok: true, title: "Demo Pet Store", version: "1.0.0", openapi: "3.1.0", operations: 10, warnings: [] },
      { source: bad, ok: false, title: null, version: null, openapi: null, operations: null, warnings: [], error: { code: "parse-error", pointer: "", message: "not valid YAML at line 3, column 1: Tabs are not allowed as indentation" } },
      { source: join(dataDir, "missing.json"), ok: false, title: null, version: null, openapi: null, operations: null, warnings: [], error: { code: "not-found", pointer: "", message: `no such file: ${join(dataDir, "missing.json")}` } },
    ]);
    expect(Object.keys(lines[1])).toEqual(["source", "ok", "title", "version", "openapi", "operations", "warnings", "error"]);
  });

  it("reports an unusable spec on stderr as one line, never a stack trace", async () => {
    const { code, stdout, stderr } = await run(["ingest", `${base}/broken.yaml`, "--data-dir", dataDir]);
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr).toBe(`error: ${base}/broken.yaml: GET ${base}/broken.yaml answered 500 Internal Server Error [http-error]\n`);
  });

  it("reads a spec from a URL and from stdin", async () => {
    expect((await run(["ingest", `${base}/openapi.yaml`, "--data-dir", dataDir])).stdout).toContain("Demo Pet Store 1.0.0 (OpenAPI 3.1.0), 10 operations");
    expect((await run(["ingest", "-", "--json", "--data-dir", dataDir], readFileSync(swagger2, "utf8"))).stdout).toContain('"source":"-","ok":true,"title":"Swagger Petstore"');
  });

  it("caches what it parsed in the data directory", async () => {
    await run(["ingest", demoSpec, "--data-dir", dataDir]);
    const artifacts = (await import("node:fs")).readdirSync(join(dataDir, "artifacts"));
    expect(artifacts.filter((f) => f.endsWith(".json"))).toHaveLength(1);
  });

  it("explains itself with --help", async () => {
    const { code, stdout } = await run(["ingest", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: workbench ingest [options] <specs...>");
    expect(stdout).toContain("--json");
    expect(stdout).toContain("Exit status: 0 when every spec was usable");
  });

  it("runs as a real process through bin/workbench.js", () => {
    const child = spawnSync(process.execPath, [join(repo, "bin/workbench.js"), "ingest", demoSpec, join(dataDir, "nope.yaml"), "--json", "--data-dir", dataDir], { encoding: "utf8" });
    expect(child.status).toBe(1);
    expect(child.stderr).toBe("");
    const [good, bad] = child.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(good).toMatchObject({ ok: true, operations: 10 });
    expect(bad).toMatchObject({ ok: false, error: { code: "not-found" } });
  });
});
