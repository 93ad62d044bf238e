import { existsSync, statSync } from "node:fs";
import { spawn } from "node:child_process";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockfilePath, readLock, writeLock } from "../serve/lockfile.ts";
import { childEnv, envelopeOf, httpMcpClient, REPO_ROOT, runCli, spawnServe, tempDataDir, WORKBENCH_BIN, type ServeChild } from "../serve/test-support.ts";

describe("workbench serve (a real process) and the CLI talking to it", () => {
  const dataDir = tempDataDir();
  let serve: ServeChild;

  beforeAll(async () => {
    serve = await spawnServe(dataDir, ["--port", "0"]);
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it("prints the URL to open with the session token, and keeps an owner-only lockfile", () => {
    expect(serve.openUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/);
    expect(serve.mcpUrl).toBe(`${new URL(serve.openUrl).origin}/mcp`);
    expect(statSync(lockfilePath(dataDir)).mode & 0o777).toBe(0o600);
    expect(readLock(dataDir)).toMatchObject({ kind: "serve", pid: serve.child.pid, url: new URL(serve.openUrl).origin, sessionToken: serve.openUrl.split("#token=")[1] });
  });

  it("approve, runs list/show and rules go to the running instance, which continues the run and notifies the agent", async () => {
    const client = await httpMcpClient(serve.mcpUrl, readLock(dataDir)!.mcpToken, "cli-test-agent");
    const finished = new Promise<unknown>((resolve) => client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(n.params.data)));
    const pending = envelopeOf(await client.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => (await apis.petstore.createPet({ body: { name: "Rex" } })).body' } }));
    expect(pending.status).toBe("pending");

    const listed = await runCli(["runs", "list", "--status", "pending", "--json"], dataDir);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split("\n").map((l) => JSON.parse(l).id)).toContain(pending.run);
    const shown = await runCli(["runs", "show", pending.run, "--json"], dataDir);
    expect(JSON.parse(shown.stdout)).toMatchObject({ run: { id: pending.run, source: { kind: "mcp", client: "cli-test-agent 1.2.3" } }, pending: { operation: "POST /pets" } });

    const approved = await runCli(["approve", pending.run, "--always"], dataDir);
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    const envelope = JSON.parse(approved.stdout);
    expect(envelope).toMatchObject({ run: pending.run, status: "completed", calls: [{ operation: "POST /pets", status: 201, decision: "approved" }], result: { name: "Rex" } });
    expect(await finished).toMatchObject({ event: "run.finished", run: pending.run, status: "completed" });

    // The pet lives in the demo server of the serve process: the run continued there, not in the CLI.
    const read = envelopeOf(await client.callTool({ name: "execute_api_code", arguments: { code: `async () => (await apis.petstore.getPet({ petId: ${envelope.result.id} })).body.name` } }));
    expect(read.result).toBe("Rex");
    const final = envelopeOf(await client.callTool({ name: "get_code_run", arguments: { run: pending.run } }));
    expect(final.calls[0]?.decision).toBe("approved");
    const shownAfter = JSON.parse((await runCli(["runs", "show", pending.run, "--json"], dataDir)).stdout);
    expect(shownAfter.calls[0]).toMatchObject({ decidedBy: "cli" });

    const rules = await runCli(["rules", "list", "--json"], dataDir);
    expect(JSON.parse(rules.stdout)).toEqual([expect.objectContaining({ api: "petstore", operationId: "createPet", createdBy: "cli" })]);
    expect((await runCli(["rules", "remove", "petstore", "createPet"], dataDir)).code).toBe(0);
    expect((await runCli(["rules", "remove", "petstore", "createPet"], dataDir)).stderr).toMatch(/no allow rule/);
    expect((await runCli(["approve", pending.run], dataDir)).stderr).toMatch(/not waiting for a decision/);

    const exported = await runCli(["runs", "export", pending.run, "--har"], dataDir);
    expect(JSON.parse(exported.stdout).log.entries).toHaveLength(1);
    await client.close();
  });

  it("deny through the running instance hands the program CallDenied with the message", async () => {
    const client = await httpMcpClient(serve.mcpUrl, readLock(dataDir)!.mcpToken);
    const pending = envelopeOf(await client.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => { try { await apis.petstore.deletePet({ petId: 1 }) } catch (e) { return e.message } }' } }));
    const denied = await runCli(["deny", pending.run, "--message", "not that one"], dataDir);
    expect(JSON.parse(denied.stdout)).toMatchObject({ status: "completed", result: expect.stringContaining("not that one") });
    await client.close();
  });

  it("refuses to start a second server for the same data directory", async () => {
    await expect(spawnServe(dataDir)).rejects.toThrow(/already running \(serve, pid \d+\)/);
  });

  it("removes its lockfile on SIGTERM, after which the CLI works in-process", async () => {
    const other = tempDataDir();
    const s = await spawnServe(other);
    expect(existsSync(lockfilePath(other))).toBe(true);
    expect(await s.stop()).toBe(0);
    expect(existsSync(lockfilePath(other))).toBe(false);
    const listed = await runCli(["runs", "list"], other);
    expect(listed).toMatchObject({ code: 0, stdout: expect.stringContaining("No runs match") });
  });

  it("replaces a stale lockfile whose process is gone", async () => {
    const other = tempDataDir();
    const dead = spawn(process.execPath, ["-e", ""], { cwd: REPO_ROOT });
    const deadPid = await new Promise<number>((resolve) => dead.once("exit", () => resolve(dead.pid!)));
    writeLock(other, { format: 1, kind: "serve", pid: deadPid, port: 9, url: "http://127.0.0.1:9", sessionToken: "x", mcpToken: "y", startedAt: new Date().toISOString() });
    // The CLI ignores it...
    expect((await runCli(["runs", "list"], other)).code).toBe(0);
    // ...and serve replaces it.
    const s = await spawnServe(other);
    expect(readLock(other)?.pid).toBe(s.child.pid);
    await s.stop();
  });

  it("--help describes serve and mcp", async () => {
    expect((await runCli(["serve", "--help"], dataDir)).stdout).toMatch(/--port <N>[\s\S]*--open/);
    expect((await runCli(["mcp", "--help"], dataDir)).stdout).toMatch(/stdin\/stdout/);
    expect(WORKBENCH_BIN).toMatch(/bin\/workbench\.js$/);
    expect(childEnv(dataDir).WORKBENCH_DATA_DIR).toBe(dataDir);
  });
});
