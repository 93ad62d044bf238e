import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { REPO } from "./support/serve.ts";
import { openSession, type Session } from "./support/session.ts";

const TODO_SPEC = join(REPO, "e2e/fixtures/todo-swagger2.yaml");

describe("adding an API", () => {
  let s: Session;
  beforeAll(async () => {
    s = await openSession();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("says what is wrong with text that is not a spec", async () => {
    const dialog = await s.wb.openAddApi();
    await dialog.paste("this: is\nnot: [an, openapi, document]");
    await dialog.root.getByRole("alert").waitFor();
    expect(await dialog.root.getByRole("alert").innerText()).toMatch(/not a spec the workbench can use|Could not read the spec/);
    await screenshot(s.browser.page, "add-api-not-a-spec");
    await s.browser.page.keyboard.press("Escape");
    await dialog.root.waitFor({ state: "detached" });
  });

  it("reads a file, shows the repair report before registering, then adds the API", async () => {
    const dialog = await s.wb.openAddApi();
    await dialog.chooseFile(TODO_SPEC);
    await dialog.report.waitFor();
    expect(await dialog.summary.innerText()).toMatch(/Todo List[\s\S]*3 operations/);
    const report = await dialog.report.innerText();
    expect(report).toContain("upgraded-swagger-2");
    expect(report).toContain("derived-operation-id");
    expect(report).toContain("getTodos");
    expect(await dialog.baseUrlInput.inputValue()).toBe("https://todo.example.com/v1");
    await screenshot(s.browser.page, "add-api-report");

    // Nothing is registered before the person says so.
    expect((await s.wb.channel<{ name: string }[]>("apis.list")).map((a) => a.name)).toEqual(["petstore"]);

    await dialog.nameInput.fill("todo");
    await dialog.root.getByLabel("Authentication").selectOption({ label: "apiKey (from the spec)" });
    await dialog.root.getByLabel(/^Sandbox globals/).fill('{ "list": "home" }');
    await dialog.add();
    await dialog.root.waitFor({ state: "detached" });

    await s.wb.sidebar.api("todo").waitFor();
    await s.wb.sidebar.operation("List todos").waitFor();
    const apis = await s.wb.channel<{ name: string; config: { auth?: { scheme?: string }; sandboxGlobals?: unknown } }[]>("apis.list");
    const todo = apis.find((a) => a.name === "todo");
    expect(todo?.config.auth?.scheme).toBe("apiKey");
    expect(todo?.config.sandboxGlobals).toEqual({ list: "home" });

    // Its settings tab opens with the repairs and lets the person edit it later.
    const settings = s.wb.activePanel;
    await settings.getByRole("heading", { name: /todo/ }).waitFor();
    expect(await settings.getByTestId("repair-report").innerText()).toContain("derived-operation-id");
    await settings.getByLabel("Validation of calls against the spec").selectOption("warn");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(async () => (await s.wb.channel<{ name: string; config: { validate: string } }[]>("apis.list")).find((a) => a.name === "todo")?.config.validate).toBe("warn");
    await screenshot(s.browser.page, "add-api-settings");
    expect(s.browser.pageErrors).toEqual([]);
  });
});
