/**
 * The attacker's world, for the security tests: a real workbench on a temp
 * data directory, a victim API (`x`) whose credential is a cookie and whose
 * base URL has a path prefix (`/api`, so a climbing path shows), a second vault
 * secret that programs may reference, and an exfiltration API (`y`) that
 * records whatever reaches it. Programs are hostile; so are the specs some
 * tests register and the upstream's answers.
 *
 * `exposure()` gathers every surface a secret could leak to (the envelope, the
 * run as MCP's get_code_run and resource return it, the store's records, JSON
 * and HAR exports, the CLI's `runs show` and `runs export --har`, the host
 * log, what the exfiltration API received; the test file hands in the CLI's
 * `main`, since host code may not import a face), and `assertNoSecret()` looks for
 * each secret in every form the redactor knows, plus the ones an attacker
 * would try next. `storeBytes()` reads the data directory's files as bytes.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { expect } from "vitest";
import type { ApiConfigInput } from "../../../shared/api-config.ts";
import type { Envelope } from "../../../shared/envelope.ts";
import { createMcpSession, type McpSession } from "../mcp/session.ts";
import { exportRunJson } from "../runs/export-json.ts";
import { exportHar } from "../runs/har.ts";
import type { RunLimits } from "../sandbox/types.ts";
import { json, startRecordingServer, type Handler, type RecordingServer } from "../test-support/recording-server.ts";
import { TEST_VAULT_KEY } from "../test-support/workbench.ts";
import { Workbench } from "../workbench.ts";

/** The victim API's session cookie (its credential). */
export const CANARY = "CanarySess7xQ2vLm9Rt";
/** A second secret, one programs may pass by reference (`vault.x.token`). */
export const CANARY_REF = "CanaryRef4kP8zW1nB6";
export const SECRETS = [CANARY, CANARY_REF];

/** Every spelling of a secret that must never show: raw, percent-encoded, base64(url), JSON `\u` escapes, JSON-in-JSON. */
export function forms(secret: string): string[] {
  const escaped = [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("base64url"), escaped, escaped.replace(/\\/g, "\\\\")];
}

/** The victim's spec: reads and writes on /things, an echo, a hang, and a parameter with a catastrophic pattern. */
export const VICTIM_SPEC = {
  openapi: "3.0.3",
  info: { title: "Victim", version: "1" },
  components: { securitySchemes: { sess: { type: "apiKey", in: "cookie", name: "sess" } } },
  security: [{ sess: [] }],
  paths: {
    "/things/{id}": {
      get: { operationId: "getThing", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } },
      delete: { operationId: "deleteThing", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "204": { description: "gone" } } },
    },
    "/labels/{id}": {
      get: { operationId: "getLabel", parameters: [{ name: "id", in: "path", required: true, style: "label", schema: { type: "string" } }], responses: { "200": { description: "ok" } } },
    },
    "/reserved/{id}": {
      get: { operationId: "getReserved", parameters: [{ name: "id", in: "path", required: true, allowReserved: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } },
    },
    "/echo": {
      get: {
        operationId: "echo",
        parameters: [{ name: "x-note", in: "header", schema: { type: "string" } }, { name: "q", in: "query", schema: { type: "string" } }, { name: "mode", in: "query", schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
      post: { operationId: "echoPost", requestBody: { content: { "application/json": { schema: {} } } }, responses: { "200": { description: "ok" } } },
    },
    "/hang/{id}": { get: { operationId: "hang", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } } },
    "/match/{v}": {
      get: { operationId: "match", parameters: [{ name: "v", in: "path", required: true, schema: { type: "string", pattern: "^(a+)+$" } }], responses: { "200": { description: "ok" } } },
    },
  },
};

/** The exfiltration API: takes anything, anywhere, and records it. */
export const EXFIL_SPEC = {
  openapi: "3.0.3",
  info: { title: "Collector", version: "1" },
  paths: {
    "/collect": { post: { operationId: "collect", requestBody: { content: { "application/json": { schema: {} } } }, responses: { "200": { description: "ok" } } } },
    "/collect/{v}": { get: { operationId: "collectPath", parameters: [{ name: "v", in: "path", required: true, schema: { type: "string" } }, { name: "q", in: "query", schema: { type: "string" } }], responses: { "200": { description: "ok" } } } },
  },
};

/** The victim upstream: echoes what it got (cookie included), in plain or `\u`-escaped JSON, or hangs. */
const victimHandler: Handler = (req, res) => {
  const path = req.path.replace(/^\/api/, "");
  if (path.startsWith("/hang/")) return; // never answers
  const seen = { method: req.method, path: req.path, query: Object.fromEntries(req.query), cookie: req.headers.cookie ?? null, note: req.headers["x-note"] ?? null, body: req.text };
  if (req.query.get("mode") === "escaped") {
    // Every letter and digit of the cookie \u-escaped, at the top level and again inside a JSON string.
    const escape = (text: string) => text.replace(/[A-Za-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    const cookie = escape(String(req.headers.cookie ?? ""));
    const inner = `{\\"cookie\\":\\"${cookie.replace(/\\/g, "\\\\")}\\"}`;
    const text = `{"cookie":"${cookie}","nested":"${inner}","${cookie}":true}`;
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(text);
  }
  if (req.query.get("mode") === "split") {
    // The secret in two halves: no redactor can see it, a program can join it. (Documented limit: transforms.)
    const value = String(req.headers.cookie ?? "").replace(/^.*sess=/, "");
    return json(res, 200, { a: value.slice(0, 8), b: value.slice(8) });
  }
  json(res, 200, seen, { "x-echo-cookie": String(req.headers.cookie ?? "") });
};

export interface AttackBench {
  dataDir: string;
  workbench: Workbench;
  victim: RecordingServer;
  exfil: RecordingServer;
  mcp: Client;
  hostLog: string[];
  /** Runs a program as an agent or a person would (source cli), with writes pre-approved unless said otherwise. */
  run(code: string, options?: { policy?: "read_only" | "all"; approveWrites?: boolean; limits?: Partial<RunLimits> }): Promise<Envelope>;
  /** Every text a person or agent can see of a run, across the faces. */
  exposure(runId: string): Promise<string[]>;
  registerApi(name: string, spec: object, config: ApiConfigInput): void;
  /** Changes some of a registered API's settings, as `workbench api set` or the settings form would. */
  configure(name: string, patch: Partial<ApiConfigInput>): void;
  /** Stops everything; fails if any file of the data directory holds a secret in any form (after every attack of the file). */
  close(): Promise<void>;
}

/** The CLI's entry point (`main` of electron/cli.ts), handed in by the test file. */
export type CliMain = (argv: string[], io: { stdout(t: string): void; stderr(t: string): void; readStdin(): Promise<string>; env: NodeJS.ProcessEnv; exit(code: number): void }) => Promise<number>;

export async function openAttackBench(main: CliMain): Promise<AttackBench> {
  const dataDir = mkdtempSync(join(tmpdir(), "wb-security-"));
  const victim = await startRecordingServer(victimHandler);
  const exfil = await startRecordingServer((_req, res) => json(res, 200, { ok: true }));
  const hostLog: string[] = [];
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 2, log: (m) => hostLog.push(m) });
  if (!opened.ok) throw new Error(opened.message);
  const workbench = opened.workbench;
  workbench.vault.set("x", "sess", CANARY, { allowApis: ["x"] });
  workbench.vault.set("x", "token", CANARY_REF, { allowApis: ["x"] });

  const registerApi = (name: string, spec: object, config: ApiConfigInput) => {
    const { result } = workbench.registry.store.ingest(JSON.stringify(spec));
    if (!result.ok) throw new Error(result.error.message);
    const registered = workbench.registry.register(name, result.artifact, config, { kind: "text" });
    if (!registered.ok) throw new Error(registered.error.message);
  };
  registerApi("x", VICTIM_SPEC, { baseUrl: `${victim.url}/api`, auth: { scheme: "sess", credential: "vault:x/sess" }, passthroughHeaders: ["x-free"], timeoutMs: 1_000 });
  registerApi("y", EXFIL_SPEC, { baseUrl: exfil.url, validate: "off" });

  const configure = (name: string, patch: Partial<ApiConfigInput>) => {
    const entry = workbench.registry.entry(name);
    if (!entry) throw new Error(`no API ${name}`);
    const updated = workbench.registry.update(name, { config: { ...entry.config, ...patch } });
    if (!updated.ok) throw new Error(updated.error.message);
  };

  const session: McpSession = createMcpSession(workbench);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  const mcp = new Client({ name: "attacker-agent", version: "1.0" });
  await mcp.connect(clientSide);

  const bench: AttackBench = {
    dataDir,
    workbench,
    victim,
    exfil,
    mcp,
    hostLog,
    registerApi,
    configure,
    async run(code, options = {}) {
      return workbench.execute({
        code,
        policy: options.policy ?? "all",
        source: { kind: "cli" },
        ...(options.approveWrites === false ? {} : { preApprovedBy: "security-test" }),
        ...(options.limits ? { limits: options.limits } : {}),
      });
    },
    async exposure(runId) {
      const texts: string[] = [];
      const store = workbench.store;
      texts.push(JSON.stringify(store.getRun(runId)), JSON.stringify(store.getCalls(runId)), JSON.stringify(store.listPendingDecisions()));
      texts.push(JSON.stringify(exportRunJson(store, runId)), JSON.stringify(exportHar(store, runId)));
      const got = await mcp.callTool({ name: "get_code_run", arguments: { run: runId } });
      texts.push(JSON.stringify(got));
      texts.push(JSON.stringify(await mcp.readResource({ uri: `coderun://${runId}` })));
      for (const argv of [["runs", "show", runId], ["runs", "show", runId, "--json"], ["runs", "export", runId, "--har"]]) texts.push(await cli(main, dataDir, argv));
      texts.push(hostLog.join("\n"));
      texts.push(JSON.stringify(exfil.requests.map((r) => ({ url: r.url, headers: r.headers, text: r.text }))));
      return texts;
    },
    async close() {
      try {
        await mcp.close();
        await session.close();
        await workbench.close();
        // Nothing any attack did left a secret in any file of the data directory (the vault holds them sealed).
        assertNoSecretInFiles(dataDir);
      } finally {
        await victim.close();
        await exfil.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
  return bench;
}

/** Fails naming the surface and the form when any secret shows in any text. */
export function assertNoSecret(texts: string[], secrets: string[] = SECRETS): void {
  for (const [i, text] of texts.entries()) {
    for (const secret of secrets) {
      for (const form of forms(secret)) expect(text.includes(form), `surface ${i} shows ${JSON.stringify(form)}: ${text.slice(Math.max(0, text.indexOf(form) - 120), text.indexOf(form) + 60)}`).toBe(false);
    }
  }
}

/** Every file of the data directory, as bytes (the run store with its WAL, registry, vault, artifacts). */
export function storeBytes(dataDir: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push({ file: path, bytes: readFileSync(path) });
    }
  };
  walk(dataDir);
  return out;
}

export function assertNoSecretInFiles(dataDir: string, secrets: string[] = SECRETS): void {
  for (const { file, bytes } of storeBytes(dataDir)) {
    for (const secret of secrets) for (const form of forms(secret)) expect(bytes.includes(form), `${file} holds ${JSON.stringify(form)}`).toBe(false);
  }
}

/** The CLI in this process, as `workbench <argv>` with the bench's data directory; its whole output. */
export async function cli(main: CliMain, dataDir: string, argv: string[]): Promise<string> {
  let text = "";
  await main(argv, {
    stdout: (t) => void (text += t),
    stderr: (t) => void (text += t),
    readStdin: async () => "",
    env: { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_VAULT_KEY: TEST_VAULT_KEY },
    exit: () => {},
  });
  return text;
}
