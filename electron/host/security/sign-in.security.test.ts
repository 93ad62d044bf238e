/**
 * Signing in to a real authorization server (issue #14): oidc-provider on
 * loopback with a public client (PKCE required, refresh tokens, device flow,
 * revocation) and a resource server that checks every access token with it.
 * A person signs in with `workbench auth login` (the provider's own login and
 * consent pages, driven in Debian's Chromium); an agent's programs then call
 * the protected API over MCP. Covered: the browser and device sign-ins, a
 * wrong `state`, a code used twice, expiry and refresh, a 401 refreshed once,
 * a revoked refresh token, the device flow's pending and slow-down answers,
 * its expiry and refusal, and signing out.
 *
 * The canary check runs last: no token the provider ever issued (access or
 * refresh) shows in any envelope, store record, export, MCP answer, CLI
 * output, host log line or byte of the data directory (logs/host.log
 * included), in any of the forms the redactor knows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli.ts";
import type { Envelope } from "../../../shared/envelope.ts";
import { createHandlers } from "../handlers/index.ts";
import { createMcpSession, type McpSession } from "../mcp/session.ts";
import { readSignIn } from "../oauth/grants.ts";
import { exportRunJson } from "../runs/export-json.ts";
import { exportHar } from "../runs/har.ts";
import { PUBLIC_CLIENT_ID, startOAuthServer, type OAuthServer } from "../test-support/oauth-server.ts";
import { TEST_VAULT_KEY } from "../test-support/workbench.ts";
import { Workbench } from "../workbench.ts";
import { assertNoSecret, assertNoSecretInFiles } from "./harness.ts";

let server: OAuthServer;
let browser: Browser;
let dataDir: string;
let workbench: Workbench;
let session: McpSession;
let agent: Client;
const hostLog: string[] = [];
/** Everything a person or agent saw: CLI output, envelopes, MCP answers. Searched for tokens at the end. */
const seen: string[] = [];
const runs: string[] = [];

beforeAll(async () => {
  server = await startOAuthServer();
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  dataDir = mkdtempSync(join(tmpdir(), "wb-signin-"));
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1, log: (m) => hostLog.push(m) });
  if (!opened.ok) throw new Error(opened.message);
  workbench = opened.workbench;
  const { result } = workbench.registry.store.ingest(JSON.stringify(server.spec));
  if (!result.ok) throw new Error(result.error.message);
  // Registered with the spec's scheme and no client id: the first sign-in is given one and keeps it.
  const registered = workbench.registry.register("notes", result.artifact, { auth: { scheme: "notesAuth" } }, { kind: "text" });
  if (!registered.ok) throw new Error(registered.error.message);
  session = createMcpSession(workbench);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  agent = new Client({ name: "notes-agent", version: "1.0" });
  await agent.connect(clientSide);
});

afterAll(async () => {
  await agent?.close();
  await session?.close();
  await workbench?.close();
  // The canaries: every token the provider issued, against everything anyone saw and every stored byte.
  if (server) {
    const tokens = [...new Set(server.issuedTokens)];
    expect(tokens.length).toBeGreaterThan(6);
    const exposed = [...seen, hostLog.join("\n")];
    const reopened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (reopened.ok) {
      const store = reopened.workbench.store;
      exposed.push(JSON.stringify(store.listPendingDecisions()));
      for (const run of runs) exposed.push(JSON.stringify(store.getRun(run)), JSON.stringify(store.getCalls(run)), JSON.stringify(exportRunJson(store, run)), JSON.stringify(exportHar(store, run)));
      await reopened.workbench.close();
    }
    for (const run of runs) for (const argv of [["runs", "show", run, "--json"], ["runs", "export", run, "--har"]]) exposed.push(await cli(argv));
    exposed.push(await cli(["auth", "status", "--json"]), await cli(["vault", "list", "--json"]));
    assertNoSecret(exposed, tokens);
    assertNoSecretInFiles(dataDir, tokens);
  }
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** `workbench <argv>` in this process on the test's data directory; `openUrl` drives the browser. */
async function cli(argv: string[], openUrl?: (url: string) => Promise<void>, onStdout?: (text: string) => void): Promise<string> {
  let text = "";
  const code = await main([...argv, "--data-dir", dataDir], {
    stdout: (t) => {
      text += t;
      onStdout?.(t);
    },
    stderr: (t) => void (text += t),
    readStdin: async () => "",
    env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY },
    exit: () => {},
    ...(openUrl ? { openUrl } : {}),
  });
  seen.push(text);
  return `${text}${code ? `[exit ${code}]` : ""}`;
}

/** The provider's login and consent pages, as a person would go through them (a fresh browser profile each time). */
async function signInAtProvider(url: string, login = "alice"): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "any");
  await page.click('button[type="submit"]');
  await page.waitForSelector("text=Authorize");
  await page.click('button[type="submit"]');
  await page.waitForSelector("h1");
  return page;
}

async function agentRun(code: string, tool: "execute_api_code" | "execute_api_mutations" = "execute_api_code"): Promise<Envelope> {
  const answer = await agent.callTool({ name: tool, arguments: { code } });
  const text = (answer.content as { type: string; text: string }[])[0]!.text;
  seen.push(text);
  const envelope = JSON.parse(text) as Envelope;
  runs.push(envelope.run);
  return envelope;
}

const ME = "async () => { const r = await apis.notes.me({}); return { status: r.status, body: r.body } }";

function stored() {
  workbench.vault.reload();
  const read = readSignIn(workbench.vault, "notes");
  if (read.kind !== "ok") throw new Error(`no sign-in: ${read.kind}`);
  return read.signIn;
}

describe("signing in with the browser (authorization code with PKCE)", () => {
  it("before any sign-in, a call is refused with how to sign in, and nothing is sent", async () => {
    const before = server.resource.requests.length;
    const envelope = await agentRun("async () => { try { await apis.notes.me({}); } catch (e) { return { name: e.name, message: e.message, details: e.details }; } }");
    expect(envelope.result).toMatchObject({ name: "CallRejected", details: { reason: "sign_in_required", api: "notes" } });
    expect((envelope.result as { message: string }).message).toMatch(/you are not signed in to notes; sign in with `workbench auth login notes`/);
    expect(server.resource.requests.length).toBe(before);
    // Without a client id there is nothing to sign in with yet, and the CLI says what to give.
    expect(await cli(["auth", "login", "notes"])).toMatch(/needs the OAuth client id .* --client-id/);
  });

  it("opens the provider's page, takes exactly the redirect with its state, and an agent's program calls the API as the person", async () => {
    let authorizationUrl = "";
    const output = await cli(["auth", "login", "notes", "--client-id", PUBLIC_CLIENT_ID], async (url) => {
      authorizationUrl = url;
      // A page that guessed the port but not the state is refused, and the sign-in goes on.
      const redirect = new URL(new URL(url).searchParams.get("redirect_uri")!);
      const forged = await fetch(`${redirect.href}?code=planted&state=wrong`);
      expect(forged.status).toBe(400);
      expect(await forged.text()).toMatch(/does not belong to the sign-in the workbench is waiting for/);
      void signInAtProvider(url).then((page) => page.textContent("body").then((text) => expect(text).toMatch(/Signed in to notes as alice/)));
    });
    expect(output).toMatch(/Signed in to notes as alice\.\nnotes {2}signed in {2}as alice, scopes: notes:read notes:write, access token until /);
    const params = new URL(authorizationUrl).searchParams;
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
    expect(params.get("scope")).toBe("openid notes:read notes:write");
    // The one-shot listener is gone: the same redirect (code and all) cannot be delivered again.
    await expect(fetch(`${params.get("redirect_uri")}?code=again&state=${params.get("state")}`)).rejects.toThrow();
    // What made it work is kept as the API's settings.
    workbench.registry.syncFromDisk();
    expect(workbench.registry.entry("notes")!.config.auth).toEqual({ scheme: "notesAuth", username: PUBLIC_CLIENT_ID });

    const envelope = await agentRun(ME);
    expect(envelope.status).toBe("completed");
    expect(envelope.result).toEqual({ status: 200, body: { sub: "alice", scopes: ["notes:read", "notes:write"] } });
    expect(server.bearerTokens.at(-1)).toBe(stored().accessToken);
  });

  it("programs never see the sign-in: not as a value, not as a reference, and cannot send it", async () => {
    const envelope = await agentRun(`async () => {
      let sent;
      try { await apis.notes.request({ method: "GET", path: "/me", headers: { "x-t": "⟦vault:notes/oauth.access_token⟧" } }); } catch (e) { sent = e.name + ": " + e.message; }
      return { vault, sent };
    }`);
    expect(envelope.result).toEqual({ vault: { demo: { token: "⟦vault:demo/token⟧" } }, sent: expect.stringMatching(/^VaultDenied: ⟦vault:notes\/oauth.access_token⟧ is part of a sign-in, which the workbench attaches to its API's calls itself/) });
  });

  it("people never see the tokens either: the app's vault view cannot reveal them, and nobody can overwrite them by hand", async () => {
    const handlers = createHandlers({ workbench, shell: "browser", connect: { info: () => { throw new Error("unused"); }, rotate: async () => { throw new Error("unused"); } } });
    const items = await handlers["vault.list"]({}, { actor: "ui" });
    expect(items.find((i) => i.name === "notes")!.fields).toEqual([
      { name: "oauth.access_token", hostOnly: true },
      { name: "oauth.refresh_token", hostOnly: true },
      { name: "oauth.sign_in", hostOnly: true },
    ]);
    const revealed = await handlers["vault.reveal"]({ item: "notes", field: "oauth.access_token" }, { actor: "ui" });
    expect(revealed).toEqual({ ok: false, message: "notes/oauth.access_token is part of a sign-in: tokens are never shown. Sign out and in again in the API's settings to replace them." });
    seen.push(JSON.stringify(items), JSON.stringify(revealed));
    const set = await handlers["vault.set"]({ item: "notes", field: "oauth.access_token", value: "mine-instead" }, { actor: "ui" });
    expect(set).toEqual({ ok: false, message: "cannot set notes/oauth.access_token: fields named oauth.* hold a sign-in's tokens, which only a sign-in writes (workbench auth login)" });
  });

  it("the approval card for a write shows who signed in and the scopes the token holds", async () => {
    const pending = await agentRun('async () => (await apis.notes.createNote({ body: { text: "hi" } })).body', "execute_api_mutations");
    expect(pending.status).toBe("pending");
    const decision = workbench.store.listPendingDecisions().find((d) => d.runId === pending.run)!;
    expect(decision.request.headers.authorization).toBe("Bearer ⟦OAuth2 sign-in to notes as alice, scopes: notes:read notes:write⟧");
    const decided = await workbench.decide(pending.run, "approve", "person");
    expect(decided.ok && decided.envelope.status).toBe("completed");
    expect(decided.ok && decided.envelope.result).toEqual({ id: 1, by: "alice", text: "hi" });
    if (decided.ok) seen.push(JSON.stringify(decided.envelope));
  });

  it("auth status says who is signed in to what, with which scopes, until when", async () => {
    const status = await cli(["auth", "status"]);
    expect(status).toMatch(/^notes {2}signed in {2}as alice, scopes: notes:read notes:write, access token until \d{4}-\d\d-\d\dT/);
    const json = JSON.parse(await cli(["auth", "status", "--json"]));
    expect(json).toEqual([expect.objectContaining({ api: "notes", state: "signed_in", who: "alice", scopes: ["notes:read", "notes:write"], method: "authorizationCode", availableScopes: { "notes:read": "Read your notes", "notes:write": "Write notes" } })]);
  });
});

describe("expiry and refresh", () => {
  it("a 401 to a token the workbench still thinks valid is refreshed once and the call retried once", async () => {
    const first = stored();
    const refreshes = server.grants.filter((g) => g === "refresh_token").length;
    await server.revokeAccessToken(first.accessToken);
    // Tokens issued from now on live 2 s, for the next test.
    server.setAccessTokenTtl(2);
    const envelope = await agentRun(ME);
    expect(envelope.result).toEqual({ status: 200, body: { sub: "alice", scopes: ["notes:read", "notes:write"] } });
    expect(server.grants.filter((g) => g === "refresh_token").length).toBe(refreshes + 1);
    const calls = workbench.store.getCalls(envelope.run);
    expect(calls[0]!.firstAttempt).toMatchObject({ reason: "retried_after_401", response: { status: 401 } });
    const second = stored();
    expect(second.accessToken).not.toBe(first.accessToken);
    // The provider rotates refresh tokens: the new one was kept.
    expect(second.refreshToken).not.toBe(first.refreshToken);
  });

  it("a call with an expired token refreshes first, so the API never sees the expired one", async () => {
    const before = stored();
    expect(Date.parse(before.record.expiresAt!) - Date.parse(before.record.refreshedAt!)).toBe(2000);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const shown = server.bearerTokens.length;
    const envelope = await agentRun(ME);
    expect(envelope.result).toMatchObject({ status: 200 });
    expect(workbench.store.getCalls(envelope.run)[0]!.firstAttempt).toBeUndefined();
    // Exactly one token reached the API, and it was the new one.
    expect(server.bearerTokens.slice(shown)).toEqual([stored().accessToken]);
    expect(stored().accessToken).not.toBe(before.accessToken);
    server.setAccessTokenTtl(300);
  });

  it("a revoked refresh token: the refresh fails, the sign-in is marked expired and says how to sign in again", async () => {
    const current = stored();
    await server.revokeRefreshToken(current.refreshToken!);
    await server.revokeAccessToken(current.accessToken);
    const failed = await agentRun(ME);
    // The API's 401 is the program's answer: the one refresh it earned was refused.
    expect(failed.result).toMatchObject({ status: 401 });
    const status = await cli(["auth", "status"]);
    expect(status).toMatch(/^notes {2}EXPIRED {2}as alice, scopes: notes:read notes:write\n {2}the server refused to refresh it: invalid_grant.*; sign in again: workbench auth login notes, or Sign in in the API's settings/);
    const sent = server.resource.requests.length;
    const refused = await agentRun("async () => { try { await apis.notes.me({}); } catch (e) { return e.message; } }");
    expect(refused.result).toMatch(/^the sign-in to notes has expired \(the server refused to refresh it: invalid_grant.*\); sign in with `workbench auth login notes`.*nothing was sent$/);
    expect(server.resource.requests.length).toBe(sent);
  });
});

describe("device authorization", () => {
  it("prints where to go and the code, waits while pending, slows down when asked, then signs in", async () => {
    const polls = server.devicePolls.length;
    let driven: Promise<void> | undefined;
    const output = await cli(["auth", "login", "notes", "--device"], undefined, (text) => {
      const complete = /Or open (\S+), which carries the code/.exec(text)?.[1];
      if (!complete || driven) return;
      driven = (async () => {
        // Let the poller hear "pending" first, then have the server ask it to slow down.
        await until(() => server.devicePolls.slice(polls).includes("authorization_pending"));
        server.slowDownNextPoll();
        await until(() => server.devicePolls.slice(polls).includes("slow_down"));
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(complete);
        await page.click('button[autofocus]');
        await page.fill('input[name="login"]', "bob");
        await page.fill('input[name="password"]', "any");
        await page.click('button[type="submit"]');
        await page.waitForSelector("text=Authorize");
        await page.click('button[type="submit"]');
        await page.waitForSelector("h1");
      })();
    });
    await driven;
    expect(output).toMatch(/To sign in to notes, open http:\/\/127\.0\.0\.1:\d+\/device and enter the code [A-Z]{4}-[A-Z]{4} \(it expires in 10 minutes\)\./);
    expect(output).toMatch(/waiting for you to enter the code and approve \(the server says: authorization pending\)/);
    expect(output).toMatch(/the server asked to slow down; asking every 6 s/);
    expect(output).toMatch(/Signed in to notes as bob\./);
    expect(server.devicePolls.slice(polls)).toEqual(["authorization_pending", "slow_down", "ok"]);
    const envelope = await agentRun(ME);
    expect(envelope.result).toEqual({ status: 200, body: { sub: "bob", scopes: ["notes:read", "notes:write"] } });
  });

  it("a code nobody enters expires, and a declined one says so", async () => {
    server.setDeviceCodeTtl(2);
    const expired = await cli(["auth", "login", "notes", "--device"]);
    expect(expired).toMatch(/error: not signed in to notes: the code [A-Z]{4}-[A-Z]{4} expired before it was entered at 127\.0\.0\.1:\d+; start the sign-in again\n\[exit 1\]$/);
    server.setDeviceCodeTtl(600);
    let driven: Promise<void> | undefined;
    const declined = await cli(["auth", "login", "notes", "--device"], undefined, (text) => {
      const complete = /Or open (\S+), which carries the code/.exec(text)?.[1];
      if (!complete || driven) return;
      driven = (async () => {
        const page = await (await browser.newContext()).newPage();
        await page.goto(complete);
        await page.click('button[name="abort"]');
        await page.waitForSelector("h1");
      })();
    });
    await driven;
    expect(declined).toMatch(/error: not signed in to notes: the sign-in was declined at 127\.0\.0\.1:\d+\n\[exit 1\]$/);
    // The earlier sign-in (bob's) is untouched by both.
    expect(stored().record.who).toBe("bob");
  });
});

describe("signing out", () => {
  it("revokes the tokens at the server (RFC 7009) and deletes them", async () => {
    const current = stored();
    const output = await cli(["auth", "logout", "notes"]);
    expect(output).toBe("signed out of notes: the server revoked the tokens; the tokens were deleted from the vault\n");
    const check = await fetch(`${server.resource.url}/me`, { headers: { authorization: `Bearer ${current.accessToken}` } });
    expect(check.status).toBe(401);
    workbench.vault.reload();
    expect(readSignIn(workbench.vault, "notes").kind).toBe("none");
    expect(workbench.vault.list().find((item) => item.name === "notes")).toBeUndefined();
    expect(await cli(["auth", "status"])).toBe("notes  not signed in\n  sign in: workbench auth login notes\n");
    const envelope = await agentRun("async () => { try { await apis.notes.me({}); } catch (e) { return e.details; } }");
    expect(envelope.result).toEqual({ reason: "sign_in_required", api: "notes" });
  });
});

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
