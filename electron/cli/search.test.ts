import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { childEnv, envelopeOf, REPO_ROOT, tempDataDir, WORKBENCH_BIN } from "../serve/test-support.ts";

/** A spec the way RestBench's TMDB spec is written: operationIds that only spell out method and path. */
const MOVIES_SPEC = JSON.stringify({
  openapi: "3.0.0",
  info: { title: "Movies", version: "1" },
  servers: [{ url: "http://127.0.0.1:9" }],
  paths: {
    "/search/person": { get: { operationId: "GET_search-person", summary: "Search People", description: "Search for people.", parameters: [{ name: "query", in: "query", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } } },
    "/person/{person_id}/movie_credits": {
      parameters: [{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }],
      get: { operationId: "GET_person-person_id-movie_credits", summary: "Get Movie Credits", description: "Get the movie credits for a person.", responses: { "200": { description: "ok" } } },
    },
    "/movie/{movie_id}": {
      parameters: [{ name: "movie_id", in: "path", required: true, schema: { type: "integer" } }],
      get: { summary: "Get Details", description: "Get the primary information about a movie.", responses: { "200": { description: "ok" } } },
    },
    "/tv/{tv_id}": {
      parameters: [{ name: "tv_id", in: "path", required: true, schema: { type: "integer" } }],
      get: { summary: "Get Details", description: "Get the primary TV show details by id.", responses: { "200": { description: "ok" } } },
    },
  },
});

describe("workbench search, as a process", () => {
  it("ranks a question in plain words with find, over readable operation names", () => {
    const dir = mkdtempSync(join(tmpdir(), "workbench-search-"));
    const spec = join(dir, "movies.json");
    writeFileSync(spec, MOVIES_SPEC);
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const program = `async () => ({
      ids: specs.movies.operations.map((o) => o.id),
      found: specs.movies.find("give me the number of movies directed by Sofia Coppola", 2).map((o) => o.id),
    })`;
    const child = spawnSync(process.execPath, ["bin/workbench.js", "search", "--code", "-", "--spec", `movies=${spec}`, "--data-dir", join(dir, "data")], {
      cwd: root,
      input: program,
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, WORKBENCH_VAULT_KEY: Buffer.alloc(32, 3).toString("base64") },
    });
    expect(child.status).toBe(0);
    const envelope = JSON.parse(child.stdout);
    expect(envelope).toMatchObject({ status: "completed", result: { ids: ["getSearchPerson", "getPersonMovieCredits", "getMovieById", "getTvById"] } });
    expect(envelope.result.found).toContain("getPersonMovieCredits");
  });
});

describe("search_apis over MCP (the SDK's stdio client, `workbench mcp` as a process)", () => {
  it("finds an operation from a question in plain words", async () => {
    const dataDir = tempDataDir("wb-search-mcp-");
    const transport = new StdioClientTransport({ command: process.execPath, args: [WORKBENCH_BIN, "mcp", "--data-dir", dataDir], cwd: REPO_ROOT, env: childEnv(dataDir) as Record<string, string>, stderr: "pipe" });
    const client = new Client({ name: "search-agent", version: "1.0" }, { capabilities: {} });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "search_apis")?.description).toContain("ranked like a search engine");
      const code = 'async () => specs.petstore.find("how do I remove the pet called Rex?", 1).map((o) => o.id)';
      const envelope = envelopeOf(await client.callTool({ name: "search_apis", arguments: { code } }));
      expect(envelope).toMatchObject({ status: "completed", result: ["deletePet"] });
    } finally {
      await client.close();
    }
  });
});
