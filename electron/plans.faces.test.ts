/**
 * Plan, then apply, through the real faces (issue #15): the CLI as processes
 * (`run`, `runs show`, `approve`), and an agent over MCP (the SDK's client
 * against `workbench serve` as a process) whose pending answer carries the
 * plan's summary and who is notified once the approved plan is applied.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../shared/envelope.ts";
import { CREATE_THREE_DELETE_FIRST, SHOP_SPEC, startShop } from "./host/test-support/shop.ts";
import type { RecordingServer } from "./host/test-support/recording-server.ts";
import { envelopeOf, httpMcpClient, runCli, runCliProcess, spawnServe, tempDataDir, type ServeChild } from "./serve/test-support.ts";

let dataDir: string;
let shop: RecordingServer;
beforeAll(async () => {
  dataDir = tempDataDir("wb-plans-");
  shop = await startShop();
  const spec = join(dataDir, "shop.json");
  writeFileSync(spec, JSON.stringify(SHOP_SPEC));
  const added = await runCli(["api", "add", "shop", spec, "--base-url", shop.url], dataDir);
  expect(added.code, added.stderr).toBe(0);
});
afterAll(async () => shop.close());

const writes = () => shop.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.url}`);

const cli = (args: string[], input?: string) => runCliProcess(dataDir, args, input);

describe("the CLI, as processes", () => {
  it("run prints a pending plan of four writes, runs show lists them with the dependency, approve sends exactly four with the real id", async () => {
    shop.requests.length = 0;
    const ran = await cli(["run", "--policy", "all", "--code", "-"], CREATE_THREE_DELETE_FIRST);
    expect(ran.status, ran.stderr).toBe(0);
    const pending = JSON.parse(ran.stdout) as Envelope;
    expect(pending.status).toBe("pending");
    expect(pending.pending?.plan).toMatchObject({ writes: 4, depends: ["write 4 (DELETE /items/{id}) uses write 1's response (body.id) for id"] });
    expect(writes()).toEqual([]);

    const shown = await cli(["runs", "show", pending.run]);
    expect(shown.stdout).toMatch(/waiting for approval of a plan: 4 writes \(the program ran to its end on forecast answers; nothing was sent\)/);
    expect(shown.stdout).toMatch(/ {2}write 4: DELETE http:\/\/127\.0\.0\.1:\d+\/items\/1900000001\n {4}id ← from write 1's response \(POST \/items, body\.id\); the forecast had 1900000001/);
    expect(shown.stdout).toMatch(/approve: +workbench approve \S+ +\(--writes K to approve only the plan's first K writes\)/);

    const approved = await cli(["approve", pending.run]);
    expect(approved.status, approved.stderr).toBe(0);
    const done = JSON.parse(approved.stdout) as Envelope;
    expect(done.status).toBe("completed");
    const [firstId] = done.result as number[];
    expect(writes()).toEqual(["POST /items", "POST /items", "POST /items", `DELETE /items/${firstId}`]);
  });

  it("approve --writes 1 sends one write, then the run asks for the next alone; --approvals per-call stops at each write", async () => {
    shop.requests.length = 0;
    const pending = JSON.parse((await cli(["run", "--policy", "all", "--code", "-"], CREATE_THREE_DELETE_FIRST)).stdout) as Envelope;
    const partial = JSON.parse((await cli(["approve", pending.run, "--writes", "1"])).stdout) as Envelope;
    expect(partial.status).toBe("pending");
    expect(partial.pending?.changes).toEqual(["this is write 2 of the plan (POST /items); the person approved its first 1"]);
    expect(writes()).toEqual(["POST /items"]);
    await cli(["deny", pending.run]);

    const perCall = JSON.parse((await cli(["run", "--policy", "all", "--approvals", "per-call", "--code", "-"], CREATE_THREE_DELETE_FIRST)).stdout) as Envelope;
    expect(perCall.pending?.plan).toBeUndefined();
    expect(perCall.pending?.operation).toBe("POST /items");
    await cli(["deny", perCall.run]);
  });

  it("a write that comes out differently at apply (a read changed since the forecast) stops there, and approve prints the difference", async () => {
    shop.requests.length = 0;
    const code = `async () => {
      await apis.shop.createItem({ body: { name: "first" } });
      const { body } = await apis.shop.listItems();
      await apis.shop.createItem({ body: { name: "after " + body.length } });
    }`;
    const pending = JSON.parse((await cli(["run", "--policy", "all", "--code", "-"], code)).stdout) as Envelope;
    expect(pending.pending?.plan?.writes).toBe(2);
    const stopped = JSON.parse((await cli(["approve", pending.run])).stdout) as Envelope;
    expect(stopped.status).toBe("pending");
    expect(stopped.pending?.changes).toEqual([expect.stringMatching(/^write 2 differs from the plan: body\.name was "after (\d+)" in the plan and is now "after (\d+)"$/)]);
    expect(writes()).toEqual(["POST /items"]);
    await cli(["deny", pending.run]);
  });
});

describe("an agent over MCP, against workbench serve", () => {
  let serve: ServeChild;
  let agent: Client;
  beforeAll(async () => {
    serve = await spawnServe(dataDir, ["--port", "0"]);
    const token = /token: +(\S+)/.exec(serve.stdout())?.[1] ?? (JSON.parse((await import("node:fs")).readFileSync(join(dataDir, "mcp.json"), "utf8")) as { token: string }).token;
    agent = await httpMcpClient(serve.mcpUrl, token, "plan-agent", "1.0");
  });
  afterAll(async () => {
    await agent?.close();
    await serve?.stop();
  });

  it("twenty writes: the pending answer summarises the plan, one decision applies it, the agent is told", async () => {
    shop.requests.length = 0;
    const code = `async () => { const ids = []; for (let i = 0; i < 20; i++) ids.push((await apis.shop.createItem({ body: { name: "n" + i } })).body.id); return ids.length; }`;
    const notified = new Promise<string>((resolve) => {
      agent.fallbackNotificationHandler = async (n) => {
        const data = (n.params as { data?: { event?: string; run?: string } } | undefined)?.data;
        if (data?.event === "run.finished" && data.run) resolve(data.run);
      };
    });
    const pending = envelopeOf(await agent.callTool({ name: "execute_api_mutations", arguments: { code } }));
    expect(pending.status).toBe("pending");
    expect(pending.pending?.plan).toEqual({ writes: 20, operations: [{ api: "shop", operation: "POST /items", count: 20 }] });
    expect(pending.pending?.next).toMatch(/planned 20 writes; a person approves the whole plan/);
    expect(writes()).toEqual([]);

    const decided = await runCli(["approve", pending.run], dataDir);
    expect(decided.code, decided.stderr).toBe(0);
    expect(await notified).toBe(pending.run);
    const done = envelopeOf(await agent.callTool({ name: "get_code_run", arguments: { run: pending.run } }));
    expect(done.status).toBe("completed");
    expect(done.result).toBe(20);
    expect(writes()).toHaveLength(20);
  });
});
