import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, type BrowserHandle } from "./support/browser.ts";
import { startServe, type ServeHandle } from "./support/serve.ts";
import { WorkbenchPage } from "./pages/workbench.ts";

describe("first start", () => {
  let serve: ServeHandle;
  let browser: BrowserHandle;
  let wb: WorkbenchPage;

  beforeAll(async () => {
    serve = await startServe();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it("a tab without a session says to open the URL serve printed", async () => {
    const { page } = browser;
    await page.goto(`${serve.origin}/`);
    await page.getByRole("heading", { name: "This tab has no workbench session" }).waitFor();
    expect(await page.locator("main").innerText()).toContain("workbench serve");
    await screenshot(page, "first-start-no-session");
  });

  it("exchanges the token for a session, drops it from the address bar, and shows the demo API", async () => {
    wb = await WorkbenchPage.open(browser.page, serve.url);
    expect(browser.page.url()).not.toContain("token=");
    await wb.sidebar.api("petstore").waitFor();
    expect(await wb.sidebar.api("petstore").innerText()).toContain("Demo Pet Store");
    await wb.sidebar.operation("List pets").waitFor();
    expect(await wb.sidebar.operations().count()).toBe(10);
    // A program tab is ready to run, with a sample that calls the demo API.
    expect(await wb.editor().text()).toContain("apis.petstore.listPets");
    await screenshot(browser.page, "first-start");
    expect(browser.pageErrors).toEqual([]);
  });

  it("browses operations: filter by text and method, group by path, deprecated marked", async () => {
    await wb.sidebar.filter("pet by id");
    await expect.poll(() => wb.sidebar.operations().count()).toBeGreaterThan(0);
    expect(await wb.sidebar.operations().first().innerText()).toContain("Get a pet by id");
    await wb.sidebar.filter("");
    await wb.sidebar.toggleMethod("DELETE");
    await expect.poll(() => wb.sidebar.operations().count()).toBe(2);
    await wb.sidebar.toggleMethod("DELETE");
    await wb.sidebar.groupBy("path");
    await wb.sidebar.group("/store").waitFor();
    await wb.sidebar.groupBy("tag");
    expect(await wb.sidebar.root.locator(".srow-deprecated").count()).toBe(1);
    await screenshot(browser.page, "first-start-sidebar");
  });

  it("opens an operation: parameters, body and response schemas, examples", async () => {
    await wb.sidebar.openOperation("Get a pet by id");
    const op = wb.operation();
    await op.title.waitFor();
    expect(await op.title.innerText()).toContain("Get a pet by id");
    expect(await op.path.innerText()).toBe("/pets/{petId}");
    expect(await op.parameter("petId").innerText()).toMatch(/required/i);
    // The 200 response's Pet schema opens lazily, one level at a time.
    await op.root.getByText("Pet", { exact: true }).first().waitFor();
    await screenshot(browser.page, "operation-get-pet");

    await wb.sidebar.openOperation("Add a pet");
    await wb.operation().title.filter({ hasText: "Add a pet" }).waitFor();
    await wb.operation().schemaNode("name").first().waitFor();
    expect(await wb.operation().root.innerText()).toContain("Example");
    await screenshot(browser.page, "operation-add-pet");
    expect(browser.pageErrors).toEqual([]);
  });
});
