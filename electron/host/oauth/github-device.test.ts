/**
 * GitHub's device flow, as GitHub documents it (it is outside our control, so
 * a loopback stand-in answers the way github.com does): no metadata to
 * discover, a spec with no security schemes (the endpoints come from the
 * command line and are kept as the API's inline scheme), OAuth errors sent
 * with HTTP 200, a public client with no secret, tokens with no expiry and no
 * refresh token, and no RFC 7009 revocation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli.ts";
import { json, startRecordingServer, type RecordingServer } from "../test-support/recording-server.ts";
import { TEST_VAULT_KEY } from "../test-support/workbench.ts";
import { Workbench } from "../workbench.ts";

const TOKEN = "gho_16C7e42F292c6912E7710c838347Ae178B4a";
const CLIENT_ID = "Ov23liTestClient0001";
let github: RecordingServer;
let dataDir: string;
let polls = 0;

beforeAll(async () => {
  github = await startRecordingServer((req, res) => {
    if (req.path === "/login/device/code") {
      expect(Object.fromEntries(new URLSearchParams(req.text))).toEqual({ client_id: CLIENT_ID, scope: "repo read:user" });
      return json(res, 200, { device_code: "3584d83530557fdd1f46af8289938c8ef79f9dc5", user_code: "WDJB-MJHT", verification_uri: "https://github.com/login/device", expires_in: 900, interval: 1 });
    }
    if (req.path === "/login/oauth/access_token") {
      // GitHub answers a poll's errors with HTTP 200, and lists scopes with commas.
      if (++polls < 3) return json(res, 200, { error: "authorization_pending", error_description: "The authorization request is still pending." });
      return json(res, 200, { access_token: TOKEN, token_type: "bearer", scope: "repo,read:user" });
    }
    if (req.path === "/user") {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { message: "Bad credentials" });
      return json(res, 200, { login: "octocat" });
    }
    json(res, 404, { message: "Not Found" });
  });
  dataDir = mkdtempSync(join(tmpdir(), "wb-github-"));
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
  if (!opened.ok) throw new Error(opened.message);
  const { result } = opened.workbench.registry.store.ingest(
    JSON.stringify({ openapi: "3.0.3", info: { title: "GitHub", version: "1" }, servers: [{ url: github.url }], paths: { "/user": { get: { operationId: "usersGetAuthenticated", responses: { "200": { description: "ok" } } } } } }),
  );
  if (!result.ok) throw new Error(result.error.message);
  opened.workbench.registry.register("github", result.artifact, {}, { kind: "text" });
  await opened.workbench.close();
});
afterAll(async () => {
  await github.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cli(argv: string[]): Promise<string> {
  let text = "";
  const code = await main([...argv, "--data-dir", dataDir], { stdout: (t) => void (text += t), stderr: (t) => void (text += t), readStdin: async () => "", env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, exit: () => {} });
  return `${text}${code ? `[exit ${code}]` : ""}`;
}

describe("signing in to GitHub with the device flow", () => {
  it("needs the endpoints when the spec names none, then signs in, and a program calls the API as the person", async () => {
    expect(await cli(["auth", "login", "github", "--device", "--client-id", CLIENT_ID])).toMatch(/the spec of github declares no OAuth2 scheme to sign in with/);
    const output = await cli([
      "auth", "login", "github", "--device", "--client-id", CLIENT_ID, "--scope", "repo", "--scope", "read:user",
      "--device-authorization-url", `${github.url}/login/device/code`, "--token-url", `${github.url}/login/oauth/access_token`,
    ]);
    expect(output).toBe(
      [
        "To sign in to github, open https://github.com/login/device and enter the code WDJB-MJHT (it expires in 15 minutes).",
        "waiting for you to enter the code and approve (the server says: authorization pending)...",
        "Signed in to github.",
        "github  signed in  scopes: repo read:user, no expiry given",
        "",
      ].join("\n"),
    );
    expect(polls).toBe(3);
    // No metadata was there to find; nothing but the endpoints given was asked.
    expect(github.requests.filter((r) => r.path.startsWith("/.well-known/")).length).toBe(2);

    const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (!opened.ok) throw new Error(opened.message);
    try {
      expect(opened.workbench.registry.entry("github")!.config.auth).toEqual({
        username: CLIENT_ID,
        inline: { type: "oauth2", flows: { deviceAuthorization: { deviceAuthorizationUrl: `${github.url}/login/device/code`, tokenUrl: `${github.url}/login/oauth/access_token`, scopes: {} } } },
      });
      const envelope = await opened.workbench.execute({ code: "async () => (await apis.github.usersGetAuthenticated({})).body", policy: "read_only", source: { kind: "cli" } });
      expect(envelope.result).toEqual({ login: "octocat" });
      expect(JSON.stringify(envelope)).not.toContain(TOKEN);
    } finally {
      await opened.workbench.close();
    }
    // The next sign-in needs only the API's name.
    expect(await cli(["auth", "status"])).toBe("github  signed in  scopes: repo read:user, no expiry given\n");
  });

  it("signing out without RFC 7009 deletes the tokens and says how to end them at GitHub", async () => {
    const output = await cli(["auth", "logout", "github"]);
    expect(output).toMatch(/^signed out of github: 127\.0\.0\.1:\d+ offers no token revocation \(RFC 7009\), so the tokens stay valid there until they expire; revoke the app's access in your account settings at 127\.0\.0\.1:\d+ to end them now; the tokens were deleted from the vault\n$/);
    expect(await cli(["auth", "status"])).toBe("github  not signed in\n  sign in: workbench auth login github\n");
  });
});
