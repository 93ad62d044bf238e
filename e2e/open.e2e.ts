/**
 * `workbench open <run>` reaches the window that serves the data directory:
 * here a browser tab of `workbench serve` (the app's window hears the same
 * event: electron/stand-in/app.test.ts). The tab opens the run, or the inbox
 * with the keyboard on the run's waiting call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../shared/envelope.ts";
import { launchBrowser, type BrowserHandle } from "./support/browser.ts";
import { startServe, workbenchCli, type ServeHandle } from "./support/serve.ts";
import { WorkbenchPage } from "./pages/workbench.ts";

describe("workbench open", () => {
  let serve: ServeHandle;
  let browser: BrowserHandle;
  let wb: WorkbenchPage;
  beforeAll(async () => {
    serve = await startServe();
    browser = await launchBrowser();
    wb = await WorkbenchPage.open(browser.page, serve.url);
    await wb.sidebar.api("petstore").waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it("opens a run in the tab, from another terminal", async () => {
    const read = await wb.channel<Envelope>("runs.execute", { code: "async () => (await apis.petstore.listPets({ limit: 2 })).body.items.length", policy: "read_only" });
    const out = workbenchCli(["open", read.run, "--data-dir", serve.dataDir]);
    expect(out.stderr).toBe("");
    expect(out.stdout).toBe(`${read.run}: shown in the open browser tabs of workbench serve\n`);
    await expect.poll(() => wb.runView().id.textContent()).toBe(read.run);
    expect(browser.pageErrors).toEqual([]);
  });

  it("opens the inbox at a run's waiting call with --inbox", async () => {
    const first = await wb.channel<Envelope>("runs.execute", { code: 'async () => (await apis.petstore.createPet({ body: { name: "One" } })).status', policy: "all" });
    const second = await wb.channel<Envelope>("runs.execute", { code: 'async () => (await apis.petstore.createPet({ body: { name: "Two" } })).status', policy: "all" });
    expect([first.status, second.status]).toEqual(["pending", "pending"]);
    const out = workbenchCli(["open", second.run, "--inbox", "--data-dir", serve.dataDir]);
    expect(out.stdout).toBe(`${second.run}: shown in the open browser tabs of workbench serve\n`);
    const focused = browser.page.locator(`article.decision[data-run-id="${second.run}"]`);
    await expect.poll(() => focused.evaluate((el) => (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === el)).toBe(true);
    expect(browser.pageErrors).toEqual([]);
  });
});
