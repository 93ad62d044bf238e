import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apiConfig, type ApiConfigInput } from "../../../shared/api-config.ts";
import type { Artifact, SecurityScheme } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { artifact, operation } from "../test-support/artifacts.ts";
import { echoHandler, json, startRecordingServer, type RecordingServer } from "../test-support/recording-server.ts";
import { Redactor } from "../vault/redact.ts";
import { Vault } from "../vault/vault.ts";
import { ConfiguredCredentialResolver } from "./credentials.ts";
import { prepareCall, runCall, sendPrepared, type CallContext, type GuestCall, type PrepareOptions, type ProxyDeps, type RunEnded } from "./pipeline.ts";
import type { ApiTarget, CallEntry, CallFailure, CallLog, CallUpdate } from "./types.ts";

const CANARY = "canary-7f3a9c1e5b";
const KEY = Buffer.alloc(32, 7).toString("base64");

let upstream: RecordingServer;
let elsewhere: RecordingServer;
let vault: Vault;
let tokenCount = 0;
let issued: string[] = [];

const pets = artifact(
  [
    operation({ id: "listPets", method: "get", path: "/pets", parameters: [{ name: "limit", in: "query", required: false, schema: { type: "integer" } }], security: [{ auth: [] }] }),
    operation({
      id: "createPet",
      method: "post",
      path: "/pets",
      requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["name"], properties: { name: { type: "string" }, note: { type: "string" } } } } } },
      security: [{ auth: [] }],
    }),
    operation({ id: "open", method: "get", path: "/open", security: [] }),
    operation({ id: "bounce", method: "get", path: "/bounce", security: [{ auth: [] }] }),
  ],
  { securitySchemes: { auth: { type: "http", scheme: "bearer" } } },
);

function withScheme(scheme: SecurityScheme): Artifact {
  return { ...pets, hash: `${pets.hash}-${JSON.stringify(scheme)}`, securitySchemes: { auth: scheme } };
}

function target(art: Artifact, config: ApiConfigInput, name = "pets"): ApiTarget {
  return { name, artifact: art, config: apiConfig.parse(config), baseUrl: config.baseUrl ?? upstream.url };
}

function deps(t: ApiTarget): ProxyDeps {
  return { target: (api) => (api === t.name ? t : undefined), vault, resolver: new ConfiguredCredentialResolver({ vault }) };
}

async function roundTrip(t: ApiTarget, guest: Omit<GuestCall, "api">, opts: PrepareOptions = { policy: "all", preApproved: true }) {
  const d = deps(t);
  const prepared = await prepareCall(d, { api: t.name, ...guest }, opts);
  const redactor = new Redactor(vault.secrets());
  const sent = await sendPrepared(d, prepared, redactor);
  // What leaves the pipeline, as the sandbox's exit (runs/attempt.ts) and the store's (runs/run-log.ts) redact it.
  const exits = redactor.redactJson(sent as unknown as JsonValue);
  return { prepared, sent, exits };
}

async function failure(promise: Promise<unknown>): Promise<CallFailure> {
  try {
    await promise;
  } catch (err) {
    return err as CallFailure;
  }
  throw new Error("expected the call to fail");
}

beforeAll(async () => {
  elsewhere = await startRecordingServer();
  upstream = await startRecordingServer();
  const opened = Vault.open(mkdtempSync(join(tmpdir(), "wb-proxy-")), { env: { WORKBENCH_VAULT_KEY: KEY } });
  if (!opened.ok) throw new Error(opened.message);
  vault = opened.vault;
  vault.set("svc", "token", CANARY, { allowApis: ["pets"] });
  vault.set("svc", "client", "client-id-1", { allowApis: ["pets"] });
  vault.set("other", "token", `${CANARY}-other`, { allowApis: ["someone-else"] });
});
afterAll(async () => {
  await upstream.close();
  await elsewhere.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  upstream.setHandler((req, res, raw) => {
    if (req.path === "/token") {
      tokenCount++;
      const token = `tok-${CANARY}-${tokenCount}`;
      issued.push(token);
      return json(res, 200, { access_token: token, expires_in: 3600, token_type: "bearer" });
    }
    if (req.path === "/bounce") return void res.writeHead(302, { location: `${elsewhere.url}/collect` }).end();
    return echoHandler(req, res, raw);
  });
});

describe("credentials are placed as each scheme says", () => {
  it("bearer", async () => {
    await roundTrip(target(pets, { auth: { scheme: "auth", credential: "vault:svc/token" } }), { op: "listPets", args: { limit: 2 } });
    expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(upstream.requests[0]!.query.get("limit")).toBe("2");
  });

  it("basic, with a literal user name", async () => {
    await roundTrip(target(withScheme({ type: "http", scheme: "basic" }), { auth: { scheme: "auth", username: "ann", credential: "vault:svc/token" } }), { op: "listPets", args: {} });
    expect(upstream.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`ann:${CANARY}`).toString("base64")}`);
  });

  it.each([
    ["header", (r: RecordingServer) => r.requests[0]!.headers["x-api-key"]],
    ["query", (r: RecordingServer) => r.requests[0]!.query.get("api_key")],
    ["cookie", (r: RecordingServer) => r.requests[0]!.headers.cookie],
  ] as const)("apiKey in the %s", async (where, read) => {
    const name = where === "header" ? "X-Api-Key" : where === "query" ? "api_key" : "session";
    await roundTrip(target(withScheme({ type: "apiKey", in: where, name }), { auth: { scheme: "auth", credential: "vault:svc/token" } }), { op: "listPets", args: { limit: 1 } });
    expect(read(upstream)).toBe(where === "cookie" ? `session=${CANARY}` : CANARY);
    if (where === "query") expect(upstream.requests[0]!.query.get("limit")).toBe("1");
  });

  it("OAuth2 client credentials: a token fetched host-side, cached until it expires", async () => {
    tokenCount = 0;
    const t = target(withScheme({ type: "oauth2", flows: { clientCredentials: { tokenUrl: "/token", scopes: {} } } }), { auth: { scheme: "auth", username: "vault:svc/client", credential: "vault:svc/token", scopes: ["read"] } });
    const d = deps(t);
    for (let i = 0; i < 2; i++) {
      const prepared = await prepareCall(d, { api: "pets", op: "listPets", args: {} }, { policy: "read_only" });
      await sendPrepared(d, prepared, new Redactor(vault.secrets()));
    }
    const tokenRequests = upstream.requests.filter((r) => r.path === "/token");
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]!.text).toBe("grant_type=client_credentials&scope=read");
    expect(tokenRequests[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`client-id-1:${CANARY}`).toString("base64")}`);
    const apiRequests = upstream.requests.filter((r) => r.path === "/pets");
    expect(apiRequests.map((r) => r.headers.authorization)).toEqual([`Bearer ${issued.at(-1)}`, `Bearer ${issued.at(-1)}`]);
  });

  it("an inline scheme for a spec that declares none", async () => {
    const bare = artifact([operation({ id: "listPets", method: "get", path: "/pets" })]);
    await roundTrip(target(bare, { auth: { inline: { type: "apiKey", in: "header", name: "X-Key" }, credential: "vault:svc/token" } }), { op: "listPets", args: {} });
    expect(upstream.requests[0]!.headers["x-key"]).toBe(CANARY);
  });

  it("no credential where the operation says security: []", async () => {
    await roundTrip(target(pets, { auth: { scheme: "auth", credential: "vault:svc/token" } }), { op: "open", args: {} });
    expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe("where credentials may not go", () => {
  it("never over plain http to a non-loopback host: refused before sending", async () => {
    const t = target(pets, { baseUrl: "http://api.example.invalid", auth: { scheme: "auth", credential: "vault:svc/token" } });
    const error = await failure(roundTrip(t, { op: "listPets", args: {} }));
    expect(error.callError.name).toBe("CallRejected");
    expect(error.message).toMatch(/only sent over https/);
  });

  it("never to another origin through a redirect", async () => {
    elsewhere.requests.length = 0;
    const { sent } = await roundTrip(target(pets, { auth: { scheme: "auth", credential: "vault:svc/token" } }), { op: "bounce", args: {} });
    expect(sent.response.status).toBe(302);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("refuses a credential whose vault item does not allow the API", async () => {
    const t = target(pets, { auth: { scheme: "auth", credential: "vault:other/token" } });
    const error = await failure(roundTrip(t, { op: "listPets", args: {} }));
    expect(error.message).toMatch(/vault item other may not be sent to API pets/);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("401 to a credential we attached", () => {
  it("refreshes once and retries once with the same body and idempotency key, nothing more", async () => {
    tokenCount = 0;
    issued = [];
    const t = target(withScheme({ type: "oauth2", flows: { clientCredentials: { tokenUrl: "/token", scopes: {} } } }), {
      autoIdempotencyHeader: "Idempotency-Key",
      auth: { scheme: "auth", username: "client-id-1", credential: "vault:svc/token" },
    });
    upstream.setHandler((req, res) => {
      if (req.path === "/token") {
        tokenCount++;
        const token = `tok-${tokenCount}`;
        return json(res, 200, { access_token: token, expires_in: 3600 });
      }
      // Only the second token works.
      if (req.headers.authorization === "Bearer tok-2") return json(res, 201, { ok: true });
      return json(res, 401, { error: "expired" });
    });
    const { sent } = await roundTrip(t, { op: "createPet", args: { body: { name: "Rex" } } });
    const calls = upstream.requests.filter((r) => r.path === "/pets");
    expect(sent.response.status).toBe(201);
    expect(sent.firstAttempt?.reason).toBe("retried_after_401");
    expect(sent.firstAttempt?.response.status).toBe(401);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.text).toBe(calls[1]!.text);
    expect(calls[0]!.headers["idempotency-key"]).toBeTruthy();
    expect(calls[1]!.headers["idempotency-key"]).toBe(calls[0]!.headers["idempotency-key"]);

    // Still 401 after the refresh: the 401 is returned, with no third attempt.
    upstream.requests.length = 0;
    upstream.setHandler((req, res) => (req.path === "/token" ? json(res, 200, { access_token: `tok-x${++tokenCount}` }) : json(res, 401, { error: "no" })));
    const again = await roundTrip(t, { op: "createPet", args: { body: { name: "Rex" } } });
    expect(again.sent.response.status).toBe(401);
    expect(upstream.requests.filter((r) => r.path === "/pets")).toHaveLength(2);
  });
});

describe("policy, validation and vault references", () => {
  it("read_only never sends a write", async () => {
    const t = target(pets, {});
    const error = await failure(roundTrip(t, { op: "createPet", args: { body: { name: "x" } } }, { policy: "read_only" }));
    expect(error.callError.name).toBe("CallRejected");
    expect(error.message).toMatch(/read-only; nothing was sent/);
    const viaRequest = await failure(roundTrip(t, { op: "request", args: { method: "POST", path: "/pets", body: { name: "x" } } }, { policy: "read_only" }));
    expect(viaRequest.callError.name).toBe("CallRejected");
    expect(upstream.requests).toHaveLength(0);
  });

  it("strict validation refuses and quotes; warn sends and reports", async () => {
    const strict = await failure(roundTrip(target(pets, {}), { op: "createPet", args: { body: { name: 5 } } }));
    expect(strict.message).toMatch(/body\/name must be string/);
    expect(upstream.requests).toHaveLength(0);
    const { prepared } = await roundTrip(target(pets, { validate: "warn" }), { op: "createPet", args: { body: { name: 5 } } });
    expect(prepared.warnings[0]).toMatch(/validation \(sent anyway\)/);
    expect(upstream.requests).toHaveLength(1);
  });

  it("substitutes a vault reference on the wire and hides the secret in what comes back", async () => {
    const t = target(pets, {});
    const { exits, prepared } = await roundTrip(t, { op: "createPet", args: { body: { name: "Rex", note: "token=⟦vault:svc/token⟧" } } });
    expect(upstream.requests[0]!.text).toContain(`token=${CANARY}`);
    expect(prepared.request.bodyPreview).toContain("⟦vault:svc/token⟧");
    const everything = JSON.stringify(exits);
    expect(everything).not.toContain(CANARY);
    expect(everything).toContain("⟦hidden:svc/token⟧");
  });

  it("VaultDenied when the item may not go to this API, and nothing is sent", async () => {
    const error = await failure(roundTrip(target(pets, {}), { op: "createPet", args: { body: { name: "⟦vault:other/token⟧" } } }));
    expect(error.callError.name).toBe("VaultDenied");
    expect(error.message).not.toContain(CANARY);
    expect(upstream.requests).toHaveLength(0);
  });

  it("the canary never appears in what the program or the log sees, even when the upstream echoes it", async () => {
    const t = target(withScheme({ type: "apiKey", in: "query", name: "key" }), { auth: { scheme: "auth", credential: "vault:svc/token" } });
    const { exits } = await roundTrip(t, { op: "request", args: { method: "POST", path: "/pets", body: { name: "⟦vault:svc/token⟧" } } });
    expect(JSON.stringify(upstream.requests[0]!.query.get("key"))).toContain(CANARY);
    const seen = JSON.stringify(exits);
    expect(seen).not.toContain(CANARY);
    expect(seen).not.toContain(encodeURIComponent(CANARY));
  });
});

/** A CallLog that keeps what it is told, in order: what runCall wrote, and when. */
function memoryLog(): CallLog & { writes: { kind: string; entry: CallEntry | CallUpdate }[] } {
  const writes: { kind: string; entry: CallEntry | CallUpdate }[] = [];
  return {
    writes,
    recordCall: (entry) => writes.push({ kind: "record", entry }),
    finishCall: (_index, entry) => writes.push({ kind: "finish", entry }),
    replaceCall: (entry) => writes.push({ kind: "replace", entry }),
    putPendingDecision: (decision) => decision,
    isAllowed: () => false,
  };
}

function callContext(log: CallLog, ended: RunEnded | undefined, signal = new AbortController().signal): CallContext {
  return {
    runId: "run_test",
    policy: "all",
    source: { kind: "cli" },
    log,
    redactor: new Redactor([]),
    signal,
    decisionTtlMs: 60_000,
    now: Date.now,
    stopped: () => false,
    runEnded: () => ended,
    onWire: () => () => {},
    onDecisionRequested: () => {},
    note: () => {},
  };
}

describe("runCall once its run has ended", () => {
  const live = (op: string, args: JsonValue) => ({ index: 3, guest: { api: "pets", op, args }, signature: "sig" });

  it("a cancelled run sends nothing more: the call is recorded as not sent, with why", async () => {
    const log = memoryLog();
    const result = await runCall(deps(target(pets, {})), callContext(log, { why: "the run was cancelled by cli", cancelled: true }), live("open", {}));
    expect(result).toMatchObject({ kind: "answer", answer: { ok: false, error: { name: "CallRejected", message: "the run was cancelled by cli before this call was sent; nothing was sent" } } });
    expect(log.writes).toEqual([{ kind: "record", entry: expect.objectContaining({ index: 3, operation: "GET /open", status: "rejected" }) }]);
    expect(upstream.requests).toHaveLength(0);
  });

  it("a write that needs a person cannot ask one after the run completed: recorded as not sent", async () => {
    const log = memoryLog();
    const result = await runCall(deps(target(pets, {})), callContext(log, { why: "the run completed", cancelled: false }), live("createPet", { body: { name: "Rex" } }));
    expect(result).toMatchObject({ kind: "answer", answer: { ok: false, error: { name: "CallRejected", message: expect.stringMatching(/^this call needs a person's decision, but the run completed before it could be asked; nothing was sent/) } } });
    expect(log.writes).toEqual([{ kind: "record", entry: expect.objectContaining({ operation: "POST /pets", status: "rejected" }) }]);
    expect(upstream.requests).toHaveLength(0);
  });

  it("a read the program started before it returned still goes, as an unawaited fetch would", async () => {
    const log = memoryLog();
    const result = await runCall(deps(target(pets, {})), callContext(log, { why: "the run completed", cancelled: false }), live("open", {}));
    expect(result).toMatchObject({ kind: "answer", answer: { ok: true } });
    expect(log.writes.map((w) => [w.kind, (w.entry as { status?: unknown }).status])).toEqual([["record", "in_flight"], ["finish", 200]]);
    expect(upstream.requests).toHaveLength(1);
  });

  it("a send the process stopped waiting for is recorded unknown, with the reason, never left in flight", async () => {
    upstream.setHandler(() => {}); // never answers
    const log = memoryLog();
    const stop = new AbortController();
    const pending = runCall(deps(target(pets, {})), callContext(log, undefined, stop.signal), live("open", {}));
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    stop.abort(new Error("the command stopped waiting"));
    await pending;
    expect(log.writes[1]).toEqual({ kind: "finish", entry: { status: "unknown", error: { name: "CallFailed", message: expect.stringMatching(/^the command stopped waiting before the upstream answered; the request may have reached it: outcome unknown, verify before retrying$/), details: { reason: "abandoned" } } } });
  });
});
