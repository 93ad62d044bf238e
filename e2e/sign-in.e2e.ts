/**
 * Signing in from the app (a tab of `workbench serve`): the API's settings
 * show the spec's scopes to pick, Sign in opens the provider in a new tab of
 * the browser, the redirect comes back to serve's own /oauth/callback, and the
 * settings then say who is signed in with which scopes; a program's call goes
 * through as that person. The authorization server is oidc-provider on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_CLIENT_ID, startOAuthServer, type OAuthServer } from "../electron/host/test-support/oauth-server.ts";
import { Workbench } from "../electron/host/workbench.ts";
import { screenshot } from "./support/browser.ts";
import { freshDataDir } from "./support/serve.ts";
import { openSession, type Session } from "./support/session.ts";
import { loginAndConsent, SignInSection } from "./pages/sign-in.ts";

let oauth: OAuthServer;
let s: Session;

beforeAll(async () => {
  oauth = await startOAuthServer();
  const dataDir = freshDataDir();
  const opened = Workbench.open({ dataDir });
  if (!opened.ok) throw new Error(opened.message);
  const { result } = opened.workbench.registry.store.ingest(JSON.stringify(oauth.spec));
  if (!result.ok) throw new Error(result.error.message);
  opened.workbench.registry.register("notes", result.artifact, { auth: { scheme: "notesAuth", username: PUBLIC_CLIENT_ID } }, { kind: "text" });
  await opened.workbench.close();
  s = await openSession({ dataDir });
});
afterAll(async () => {
  await s?.close();
  await oauth?.close();
});

describe("signing in from the API's settings", () => {
  it("picks scopes, signs in in a browser tab, and shows who is signed in", async () => {
    const section = await SignInSection.open(s.browser.page, "notes");
    expect(await section.state().innerText()).toContain("Not signed in");
    // The spec's scopes, ticked as the operations require; one more is unticked.
    const write = section.root.getByRole("checkbox", { name: /notes:write/ });
    expect(await section.root.getByRole("checkbox", { name: /notes:read/ }).isChecked()).toBe(true);
    expect(await write.isChecked()).toBe(true);
    await write.uncheck();
    await screenshot(s.browser.page, "sign-in-settings");

    const provider = await section.signIn();
    await provider.waitForLoadState();
    expect(new URL(provider.url()).origin).toBe(oauth.issuer);
    await loginAndConsent(provider, "alice");
    await provider.waitForSelector("text=Signed in to notes as alice.");
    await provider.close();

    await section.root.locator(".signin-signed_in").waitFor();
    const text = await section.state().innerText();
    expect(text).toContain("Signed in as alice");
    expect(text).toContain("notes:read");
    expect(text).not.toContain("notes:write");
    await screenshot(s.browser.page, "sign-in-signed-in");

    const editor = await s.wb.newProgram();
    await editor.setCode("return (await apis.notes.me({})).body;");
    await editor.run();
    await s.wb.console.waitForStatus("completed");
    expect(await s.wb.console.result.innerText()).toContain("alice");
    expect(s.browser.pageErrors).toEqual([]);
  });
});
