/**
 * Signing in from the UI of `workbench serve`: the `auth.login` channel hands
 * back the authorization URL (the tab is the system browser), the redirect
 * comes back to serve's own loopback server at /oauth/callback, and a code
 * can be used once: the same redirect again is refused by the workbench, and
 * the same token request again is refused by the authorization server.
 */
import { request as httpRequest } from "node:http";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChannelName, ReplyOf, RequestOf } from "../shared/contract.ts";
import type { WorkbenchEvent } from "../shared/events.ts";
import { PUBLIC_CLIENT_ID, startOAuthServer, type OAuthServer } from "./host/test-support/oauth-server.ts";
import { openTestBench, type TestBench } from "./host/test-support/workbench.ts";
import { startWorkbenchServer, type WorkbenchServer } from "./serve.ts";

let bench: TestBench;
let server: WorkbenchServer;
let oauthServer: OAuthServer;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  oauthServer = await startOAuthServer();
  bench = await openTestBench();
  const { result } = bench.workbench.registry.store.ingest(JSON.stringify(oauthServer.spec));
  if (!result.ok) throw new Error(result.error.message);
  const registered = bench.workbench.registry.register("notes", result.artifact, { auth: { scheme: "notesAuth", username: PUBLIC_CLIENT_ID } }, { kind: "text" });
  if (!registered.ok) throw new Error(registered.error.message);
  server = await startWorkbenchServer({ workbench: bench.workbench, kind: "serve", shell: "browser", rendererDir: false, reusePort: false });
  const res = await raw("POST", "/auth/session", { "content-type": "application/json", origin: server.url }, JSON.stringify({ token: server.openUrl.split("#token=")[1]! }));
  cookie = String(res.headers["set-cookie"]).split(";")[0]!;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await bench?.close();
  await oauthServer?.close();
});

function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, method, path, headers: { host: `127.0.0.1:${server.port}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function bridge<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ReplyOf<C>> {
  const res = await raw("POST", `/api/${channel}`, { "content-type": "application/json", cookie, origin: server.url }, JSON.stringify(request));
  if (res.status !== 200) throw new Error(`${channel}: HTTP ${res.status} ${res.text}`);
  return JSON.parse(res.text) as ReplyOf<C>;
}

describe("signing in from workbench serve", () => {
  it("redirects to serve's own /oauth/callback, once; a replayed redirect or token request is refused", async () => {
    const ended = bench.workbench.bus.next((e: WorkbenchEvent): e is Extract<WorkbenchEvent, { type: "auth.changed" }> => e.type === "auth.changed" && e.ok !== undefined, 60_000);
    const start = await bridge("auth.login", { api: "notes", method: "browser", scopes: ["notes:read"] });
    expect(start).toMatchObject({ ok: true, kind: "browser", opened: false });
    if (!start.ok || start.kind !== "browser") throw new Error("no URL");
    expect(new URL(start.url).searchParams.get("redirect_uri")).toBe(`${server.url}/oauth/callback`);
    expect(new URL(start.url).searchParams.get("scope")).toBe("openid notes:read");

    const page = await (await browser.newContext()).newPage();
    let callback = "";
    page.on("request", (req) => {
      if (req.url().startsWith(`${server.url}/oauth/callback`)) callback = req.url();
    });
    await page.goto(start.url);
    await page.fill('input[name="login"]', "carol");
    await page.fill('input[name="password"]', "any");
    await page.click('button[type="submit"]');
    await page.waitForSelector("text=Authorize");
    await page.click('button[type="submit"]');
    await page.waitForSelector("text=Signed in to notes as carol.");
    expect(await ended).toMatchObject({ api: "notes", ok: true, message: "Signed in to notes as carol." });

    const status = await bridge("auth.status", {});
    expect(status).toEqual([expect.objectContaining({ api: "notes", state: "signed_in", who: "carol", scopes: ["notes:read"] })]);

    // The same redirect again (code and state): the workbench no longer waits for it.
    const again = await raw("GET", new URL(callback).pathname + new URL(callback).search);
    expect(again.status).toBe(400);
    expect(again.text).toMatch(/does not belong to a sign-in the workbench is waiting for \(it was already used, or never started here\)/);
    // The same code at the token endpoint (verifier and all, as the workbench sent it): the server refuses it.
    const exchange = oauthServer.tokenRequests.find((form) => form.get("grant_type") === "authorization_code")!;
    const replay = await fetch(`${oauthServer.issuer}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: exchange.toString() });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });

    const logout = await bridge("auth.logout", { api: "notes" });
    expect(logout).toEqual({ ok: true, message: "signed out of notes: the server revoked the tokens; the tokens were deleted from the vault" });
  });
});
