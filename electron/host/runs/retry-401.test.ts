/**
 * A 401 to a static vault credential (issue #11, item 7): the vault is read
 * again, and the call is retried once only if the value changed (a person
 * updated the token, perhaps from another process a moment ago). The retry is
 * in the record (`firstAttempt`), the envelope (`retried_after_401`) and the
 * HAR (two entries), so the upstream's two requests are never reported as one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportHar } from "./har.ts";
import { json, startRecordingServer, type RecordingServer } from "../test-support/recording-server.ts";
import { openTestBench, TEST_VAULT_KEY, type TestBench } from "../test-support/workbench.ts";
import { Vault } from "../vault/vault.ts";

const OLD = "static-old-token-1";
const NEW = "static-new-token-2";
let bench: TestBench;
let upstream: RecordingServer;
/** What the upstream does when it sees the old token: rotate the vault from "another process" first, or not. */
let rotateBeforeAnswering = false;

beforeAll(async () => {
  bench = await openTestBench();
  upstream = await startRecordingServer((req, res) => {
    if (req.headers.authorization === `Bearer ${NEW}`) return json(res, 200, { ok: true });
    if (rotateBeforeAnswering) {
      const other = Vault.open(bench.dataDir, { env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY } });
      if (!other.ok) throw new Error(other.message);
      other.vault.set("svc", "token", NEW, { allowApis: ["s"] });
    }
    json(res, 401, { error: "token expired" });
  });
  const spec = { openapi: "3.0.3", info: { title: "S", version: "1" }, components: { securitySchemes: { b: { type: "http", scheme: "bearer" } } }, security: [{ b: [] }], paths: { "/me": { get: { operationId: "me", responses: { "200": { description: "ok" } } } } } };
  const { result } = bench.workbench.registry.store.ingest(JSON.stringify(spec));
  if (!result.ok) throw new Error(result.error.message);
  expect(bench.workbench.registry.register("s", result.artifact, { baseUrl: upstream.url, auth: { scheme: "b", credential: "vault:svc/token" } }, { kind: "text" }).ok).toBe(true);
});
afterAll(async () => {
  await upstream.close();
  await bench.close();
});

describe("401 to a static credential", () => {
  it("the value did not change: no retry, the program gets the 401, the upstream got one request", async () => {
    bench.workbench.vault.set("svc", "token", OLD, { allowApis: ["s"] });
    rotateBeforeAnswering = false;
    upstream.requests.length = 0;
    const envelope = await bench.workbench.execute({ code: "async () => (await apis.s.me()).status", policy: "read_only", source: { kind: "cli" } });
    expect(envelope.result).toBe(401);
    expect(upstream.requests).toHaveLength(1);
    expect(envelope.calls[0]?.retried_after_401).toBeUndefined();
  });

  it("the value changed since (updated from another process): one retry with the new value, visible everywhere", async () => {
    bench.workbench.vault.set("svc", "token", OLD, { allowApis: ["s"] });
    rotateBeforeAnswering = true;
    upstream.requests.length = 0;
    const envelope = await bench.workbench.execute({ code: "async () => (await apis.s.me()).status", policy: "read_only", source: { kind: "cli" } });
    expect(envelope.result).toBe(200);
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${OLD}`, `Bearer ${NEW}`]);
    expect(envelope.calls[0]).toMatchObject({ status: 200, retried_after_401: true });

    const call = bench.workbench.store.getCalls(envelope.run)[0]!;
    expect(call.firstAttempt).toMatchObject({ reason: "retried_after_401", response: { status: 401 }, request: { headers: { authorization: "Bearer ⟦hidden:svc/token⟧" } } });
    const har = exportHar(bench.workbench.store, envelope.run)!;
    expect(har.log.entries.map((e) => e.response.status)).toEqual([401, 200]);
    const everything = JSON.stringify([envelope, call, har]);
    expect(everything).not.toContain(OLD);
    expect(everything).not.toContain(NEW);
  });
});
