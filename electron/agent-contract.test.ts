/**
 * The agent contract through the real faces (issue 11): `workbench serve` as
 * a process started with agent flags, an agent on its /mcp with the SDK's
 * client, a person on its HTTP bridge (settings), and the CLI as a process.
 * Mistyped names are refused and recorded, every answer fits its budget, the
 * limits come from the flags and the saved settings, and only the offered
 * tools exist.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentLimitsView } from "../shared/limits.ts";
import { findRunningInstance, type BridgeClient } from "./serve/client.ts";
import { readLock } from "./serve/lockfile.ts";
import { childEnv, envelopeOf, httpMcpClient, REPO_ROOT, spawnServe, tempDataDir, WORKBENCH_BIN, type ServeChild } from "./serve/test-support.ts";

const dataDir = tempDataDir("wb-contract-");
let serve: ServeChild;
let agent: Client;
let bridge: BridgeClient;

beforeAll(async () => {
  serve = await spawnServe(dataDir, ["--port", "0", "--tools", "search,execute,get-run", "--timeout-ms", "200", "--max-result-tokens", "1500"]);
  agent = await httpMcpClient(serve.mcpUrl, readLock(dataDir)!.mcpToken, "contract-agent");
  bridge = (await findRunningInstance(dataDir))!;
});
afterAll(async () => {
  await agent?.close();
  await serve?.stop();
});

async function execute(code: string, name = "execute_api_code") {
  const result = await agent.callTool({ name, arguments: { code } });
  return { result, text: (result.content as { text: string }[])[0]!.text, envelope: envelopeOf(result) };
}

describe("only the tools the host wants (--tools)", () => {
  it("lists only the offered tools, and no description points to a missing one", async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_apis", "execute_api_code", "get_code_run"]);
    const execute = tools.find((t) => t.name === "execute_api_code")!;
    expect(execute.description).not.toContain("execute_api_mutations");
    expect(agent.getInstructions()).not.toContain("execute_api_mutations");
    await expect(agent.callTool({ name: "execute_api_mutations", arguments: { code: "async () => 1" } })).rejects.toThrow(/unknown tool execute_api_mutations; the tools are search_apis, execute_api_code, get_code_run/);
  });
});

describe("a mistyped operation or API", () => {
  it("is CallRejected naming the nearest operations or the APIs, recorded in the run; apis.call works by name", async () => {
    const { envelope } = await execute(`async () => {
      const out = [];
      for (const f of [() => apis.petstore.getPets({}), () => apis.nope.x(), () => apis.call("petstore.listPets", { limit: 1 })]) {
        try { out.push((await f()).status) } catch (e) { out.push(e.name + ": " + e.message) }
      }
      return out;
    }`);
    expect(envelope.result).toEqual([
      expect.stringMatching(/^CallRejected: No operation getPets\. Nearest: .*GET \/pets \(listPets\)/),
      "CallRejected: No API named nope; the APIs are petstore. Nothing was sent.",
      200,
    ]);
    expect(envelope.calls.map((c) => [c.operation, c.status])).toEqual([["apis.petstore.getPets", "rejected"], ["apis.nope.x", "rejected"], ["GET /pets", 200]]);
    // Uncaught, it fails the run with the same error (not a TypeError).
    const uncaught = (await execute("async () => apis.petstore.getPets({})")).envelope;
    expect(uncaught.error).toMatchObject({ reason: "Error", name: "CallRejected", message: expect.stringContaining("No operation getPets") });
  });

  it("is the same from the editor (the bridge) and the CLI (a process)", async () => {
    const fromUi = await bridge.call("runs.execute", { code: "async () => (await apis.call('petstore.lstPets')).status", policy: "read_only" });
    expect(fromUi).toMatchObject({ status: "failed", calls: [{ operation: "apis.petstore.lstPets", status: "rejected" }], error: { name: "CallRejected", message: expect.stringMatching(/^No operation lstPets\. Nearest: GET \/pets \(listPets\)/) } });
    const cli = spawnSync(process.execPath, [WORKBENCH_BIN, "run", "--code", "-", "--data-dir", dataDir], { cwd: REPO_ROOT, env: childEnv(dataDir), input: "async () => apis.petstor.listPets()", encoding: "utf8", timeout: 60_000 });
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ status: "failed", calls: [{ api: "petstor", status: "rejected" }], error: { name: "CallRejected", message: "No API named petstor; the APIs are petstore. Nothing was sent." } });
  });
});

describe("every answer is bounded", () => {
  it("cuts 5,000 log lines and a 500 KB error to the answer budget; the stored run and get_code_run(max_tokens) keep more", async () => {
    const { text, envelope } = await execute("async () => { for (let i = 0; i < 5000; i++) console.log('line ' + i); throw new Error('x'.repeat(500000)) }");
    expect(text.length).toBeLessThanOrEqual(1500 * 4);
    expect(Object.keys(envelope)).toEqual(["run", "status", "calls", "logs", "error", "truncated"]);
    // Cut in the middle: the end says where in the program it was thrown.
    expect(envelope.error!.message).toMatch(/^x+… \[\d+ characters cut\] …x+ \(line 1, column \d+\)$/);
    expect(envelope.truncated).toMatch(/logs: kept the first \d+ and last \d+ of 1001 lines/);
    expect(envelope.truncated).toMatch(new RegExp(`get_code_run\\(\\{"run": "${envelope.run}", "max_tokens": N\\}\\)`));

    const more = await agent.callTool({ name: "get_code_run", arguments: { run: envelope.run, max_tokens: 50_000 } });
    const wider = envelopeOf(more);
    expect(wider.logs.length).toBeGreaterThan(envelope.logs.length);
    expect((await agent.callTool({ name: "get_code_run", arguments: { run: envelope.run, max_tokens: 10 } })).isError).toBe(true);

    // What a person reads (the bridge, the CLI) is the stored run, whole.
    const stored = await bridge.call("runs.get", { id: envelope.run });
    expect(stored!.run.logs).toHaveLength(1001);
    expect(stored!.run.envelope!.error!.message.length).toBeGreaterThan(500_000);
  });

  it("cuts a result nested 3,000 deep, here and in the CLI's print", async () => {
    const deep = "async () => { let o = { leaf: 1 }; for (let i = 0; i < 3000; i++) o = { o }; return o }";
    const { text, envelope } = await execute(deep);
    expect(text.length).toBeLessThan(2000);
    expect(envelope.truncated).toMatch(/values cut for depth/);
    const cli = spawnSync(process.execPath, [WORKBENCH_BIN, "run", "--code", "-", "--data-dir", dataDir], { cwd: REPO_ROOT, env: childEnv(dataDir), input: deep, encoding: "utf8", timeout: 60_000 });
    expect(cli.status).toBe(0);
    expect(cli.stdout.length).toBeLessThan(20_000);
    expect(JSON.parse(cli.stdout).truncated).toMatch(/values cut for depth/);
  });
});

describe("limits for agents are settings", () => {
  it("applies the flags of serve (compute time) and reports them as overrides on the bridge", async () => {
    const { envelope } = await execute("async () => { while (true) {} }");
    expect(envelope.error).toMatchObject({ reason: "Timeout", message: "the program used more than 200 ms of compute time" });
    const view = await bridge.call("settings.agentLimits", {});
    expect(view.overrides).toEqual({ timeoutMs: 200, maxResultTokens: 1500 });
    expect(view.effective).toMatchObject({ timeoutMs: 200, maxResultTokens: 1500, memoryMb: 128, maxCalls: 100 });
  });

  it("a limit out of bounds is refused when a process starts, exit 1, nothing run", () => {
    for (const argv of [["serve", "--memory-mb", "100000"], ["mcp", "--max-calls", "99999"], ["run", "--code", "-", "--wall-ms", "1"]]) {
      const child = spawnSync(process.execPath, [WORKBENCH_BIN, ...argv, "--data-dir", tempDataDir()], { cwd: REPO_ROOT, env: childEnv(dataDir), input: "return 1", encoding: "utf8", timeout: 30_000 });
      expect(child.status, argv.join(" ")).toBe(1);
      expect(child.stdout, argv.join(" ")).toBe("");
      expect(child.stderr, argv.join(" ")).toMatch(/^error: option '--[a-z-]+ <N>' argument '\d+' is invalid\. must be a whole number from [\d,]+ to [\d,]+ \((MiB|calls|ms)\)\n/);
    }
  });

  it("an API's options set from the CLI reach the running serve: its bridge and its agents see them", async () => {
    const set = spawnSync(process.execPath, [WORKBENCH_BIN, "api", "set", "petstore", "--context", '{"shop": "north"}', "--timeout-ms", "4000", "--data-dir", dataDir], { cwd: REPO_ROOT, env: childEnv(dataDir), encoding: "utf8", timeout: 30_000 });
    expect(set.status).toBe(0);
    await expect.poll(async () => (await bridge.call("apis.list", {})).find((a) => a.name === "petstore")?.config.timeoutMs, { timeout: 10_000 }).toBe(4000);
    expect((await execute("async () => context.petstore.shop")).envelope.result).toBe("north");
    await expect(bridge.call("apis.update", { name: "petstore", config: { timeoutMs: 5 } })).rejects.toThrow(/config\.timeoutMs: must be a whole number from 100 to 600,000 \(ms\)/);
  });

  it("saved on the bridge, a limit applies to the agent's next call, persists in the data directory, and a bad value is refused", async () => {
    const saved: AgentLimitsView = await bridge.call("settings.saveAgentLimits", { saved: { maxCalls: 2, timeoutMs: 5000 } });
    expect(saved.saved).toEqual({ maxCalls: 2, timeoutMs: 5000 });
    // The flag still wins for compute time while this serve runs.
    expect(saved.effective).toMatchObject({ maxCalls: 2, timeoutMs: 200 });
    expect(JSON.parse(readFileSync(join(dataDir, "settings.json"), "utf8"))).toEqual({ format: 1, agentLimits: { maxCalls: 2, timeoutMs: 5000 } });

    const { envelope } = await execute("async () => { for (let i = 0; i < 3; i++) await apis.petstore.listPets({}) }");
    expect(envelope.error).toMatchObject({ reason: "CallLimit" });

    await expect(bridge.call("settings.saveAgentLimits", { saved: { memoryMb: 100_000 } })).rejects.toThrow(/saved\.memoryMb: must be a whole number from 16 to 4,096 \(MiB\)/);
    await expect(bridge.call("settings.saveAgentLimits", { saved: { retries: 3 } as never })).rejects.toThrow(/unknown field "retries"/);
    expect((await bridge.call("settings.saveAgentLimits", { saved: {} })).effective.maxCalls).toBe(100);
  });
});
