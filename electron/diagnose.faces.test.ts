/**
 * Failures are diagnosable, and a retry after 401 is visible (issue #11,
 * items 6 and 7), through the real faces: the CLI as a process, an agent over
 * MCP against `workbench serve`, and serve's HTTP bridge.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../shared/envelope.ts";
import { json, startRecordingServer, type RecordingServer } from "./host/test-support/recording-server.ts";
import { envelopeOf, httpMcpClient, runCli, runCliProcess, spawnServe, tempDataDir, type ServeChild } from "./serve/test-support.ts";

const SPEC = {
  openapi: "3.0.3",
  info: { title: "Svc", version: "1" },
  components: { securitySchemes: { b: { type: "http", scheme: "bearer" } } },
  security: [{ b: [] }],
  paths: { "/me": { get: { operationId: "me", responses: { "200": { description: "ok" } } } } },
};
const OLD = "diag-old-token-1";
const NEW = "diag-new-token-2";

let dataDir: string;
let upstream: RecordingServer;
let closedUrl: string;
beforeAll(async () => {
  dataDir = tempDataDir("wb-diagnose-");
  const closed = await startRecordingServer();
  closedUrl = closed.url;
  await closed.close();
  // Answers 401 to the old token; the new one works.
  upstream = await startRecordingServer((req, res) => (req.headers.authorization === `Bearer ${NEW}` ? json(res, 200, { me: "ok" }) : json(res, 401, { error: "expired" })));
  const spec = join(dataDir, "svc.json");
  writeFileSync(spec, JSON.stringify(SPEC));
  for (const [name, base] of [["down", closedUrl], ["svc", upstream.url]] as const) {
    const added = await runCli(["api", "add", name, spec, "--base-url", base, "--auth-scheme", "b", "--credential", `vault:${name}/token`], dataDir);
    expect(added.code, added.stderr).toBe(0);
  }
});
afterAll(async () => upstream.close());

const cli = (args: string[], input?: string) => runCliProcess(dataDir, args, input);

async function setToken(item: string, value: string): Promise<void> {
  const set = await cli(["vault", "set", `${item}/token`, "--stdin", "--allow-api", item], value);
  expect(set.status, set.stderr).toBe(0);
}

describe("through the CLI as a process", () => {
  it("CallFailed carries details.reason the program can branch on (unreachable, with the code)", async () => {
    await setToken("down", "diag-down-token");
    const program = `async () => { try { await apis.down.me(); } catch (e) { return { name: e.name, reason: e.details.reason, code: e.details.code }; } }`;
    const out = await cli(["run", "--code", "-"], program);
    const envelope = JSON.parse(out.stdout) as Envelope;
    expect(envelope.result).toEqual({ name: "CallFailed", reason: "unreachable", code: "ECONNREFUSED" });
    expect(envelope.calls[0]?.error).toMatchObject({ name: "CallFailed", details: { reason: "unreachable" } });
  });

  it("a 401 to a static token retries once after the token was replaced, visible in the envelope and `runs show --json`", async () => {
    await setToken("svc", OLD);
    // The person replaces the token while the first request is on its way: the upstream asks for it by failing with 401.
    upstream.setHandler(async (req, res) => {
      if (req.headers.authorization === `Bearer ${NEW}`) return json(res, 200, { me: "ok" });
      await setToken("svc", NEW);
      json(res, 401, { error: "expired" });
    });
    const out = await cli(["run", "--code", "-"], "async () => (await apis.svc.me()).status");
    const envelope = JSON.parse(out.stdout) as Envelope;
    expect(envelope.result).toBe(200);
    expect(envelope.calls[0]).toMatchObject({ status: 200, retried_after_401: true });
    const shown = JSON.parse((await cli(["runs", "show", envelope.run, "--json"])).stdout) as { calls: { firstAttempt?: { response: { status: number } } }[] };
    expect(shown.calls[0]?.firstAttempt?.response.status).toBe(401);
    const har = JSON.parse((await cli(["runs", "export", envelope.run, "--har"])).stdout) as { log: { entries: { response: { status: number } }[] } };
    expect(har.log.entries.map((e) => e.response.status)).toEqual([401, 200]);
    for (const text of [out.stdout, JSON.stringify(shown), JSON.stringify(har)]) {
      expect(text).not.toContain(OLD);
      expect(text).not.toContain(NEW);
    }
  });
});

describe("through MCP and the bridge, against workbench serve", () => {
  let serve: ServeChild;
  let agent: Client;
  beforeAll(async () => {
    serve = await spawnServe(dataDir, ["--port", "0"]);
    const token = (JSON.parse(readFileSync(join(dataDir, "mcp.json"), "utf8")) as { token: string }).token;
    agent = await httpMcpClient(serve.mcpUrl, token, "diagnosing-agent", "1.0");
  });
  afterAll(async () => {
    await agent?.close();
    await serve?.stop();
  });

  it("an agent sees the reason as data; the bridge's run record has it too; the host log is owner-only and redacted", async () => {
    const envelope = envelopeOf(await agent.callTool({ name: "execute_api_code", arguments: { code: "async () => { try { await apis.down.me(); } catch (e) { return e.details; } }" } }));
    expect(envelope.result).toMatchObject({ reason: "unreachable", code: "ECONNREFUSED" });

    const session = serve.openUrl.split("#token=")[1]!;
    const origin = new URL(serve.openUrl).origin;
    const login = await fetch(`${origin}/auth/session`, { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify({ token: session }) });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const detail = (await (await fetch(`${origin}/api/runs.get`, { method: "POST", headers: { "content-type": "application/json", origin, cookie }, body: JSON.stringify({ id: envelope.run }) })).json()) as { calls: { error?: { details?: { reason?: string } } }[] };
    expect(detail.calls[0]?.error?.details?.reason).toBe("unreachable");

    const log = join(dataDir, "logs", "host.log");
    expect(statSync(log).mode & 0o777).toBe(0o600);
    const text = readFileSync(log, "utf8");
    for (const secret of [OLD, NEW, "diag-down-token"]) expect(text).not.toContain(secret);
  });
});
