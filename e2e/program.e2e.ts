import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { REPO } from "./support/serve.ts";
import { openSession, type Session } from "./support/session.ts";

describe("programs", () => {
  let s: Session;
  beforeAll(async () => {
    s = await openSession();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("completes apis.<name>.<operation>( and its parameters from the spec", async () => {
    const editor = await s.wb.newProgram();
    await editor.setCode("");
    await editor.type("const page = await apis.");
    await expect.poll(() => editor.suggestions.allInnerTexts(), { timeout: 20_000 }).toEqual(expect.arrayContaining([expect.stringContaining("petstore")]));
    await editor.type("petstore.");
    await expect.poll(() => editor.suggestions.allInnerTexts(), { timeout: 10_000 }).toEqual(expect.arrayContaining([expect.stringContaining("listPets"), expect.stringContaining("createPet")]));
    await screenshot(s.browser.page, "program-complete-operations");
    await editor.type("listP");
    await s.browser.page.keyboard.press("Tab");
    await editor.type("({ ");
    await s.browser.page.keyboard.press("ControlOrMeta+Space");
    await expect.poll(() => editor.suggestions.allInnerTexts(), { timeout: 10_000 }).toEqual(expect.arrayContaining([expect.stringContaining("limit"), expect.stringContaining("status")]));
    await screenshot(s.browser.page, "program-complete-parameters");
    expect(await editor.text()).toContain("apis.petstore.listPets({");
  });

  it("runs a program and shows its calls, logs and result", async () => {
    const editor = s.wb.editor();
    await editor.setCode(
      [
        "const page = await apis.petstore.listPets({ limit: 3 });",
        "const first = await apis.petstore.getPet({ petId: page.body.items[0].id });",
        'console.log(`first pet is ${first.body.name}`);',
        "return { count: page.body.items.length, first: first.body };",
      ].join("\n"),
    );
    await editor.runWithKeyboard();
    await s.wb.console.waitForStatus("completed");
    expect(await s.wb.console.calls.count()).toBe(2);
    const first = await s.wb.console.calls.nth(0).innerText();
    expect(first).toContain("GET");
    expect(first).toContain("/pets?limit=3");
    expect(first).toContain("200");
    const detail = await s.wb.console.expandCall(1);
    expect(await detail.innerText()).toMatch(/Request[\s\S]*GET[\s\S]*\/pets\/\d+[\s\S]*Response[\s\S]*200/i);
    expect(await s.wb.console.result.innerText()).toContain('"count": 3');
    await screenshot(s.browser.page, "program-run");
    const logs = await s.wb.console.showLogs();
    expect(await logs.innerText()).toMatch(/first pet is /);
    await screenshot(s.browser.page, "program-run-logs");
    if (process.env.UPDATE_README_SCREENSHOT) {
      await s.wb.console.root.getByRole("tab", { name: "Result" }).click();
      mkdirSync(join(REPO, "docs"), { recursive: true });
      copyFileSync(await screenshot(s.browser.page, "main-window"), join(REPO, "docs/screenshot.png"));
    }
  });

  it("rejects a write under the read-only policy without sending it", async () => {
    const editor = s.wb.editor();
    await editor.setPolicy("read_only");
    await editor.setCode('const r = await apis.petstore.createPet({ body: { name: "Nope" } });\nreturn r.status;');
    await editor.run();
    await s.wb.console.waitForStatus("failed");
    const call = await s.wb.console.calls.nth(0).innerText();
    expect(call).toContain("POST");
    expect(call).toMatch(/rejected/);
    expect(await s.wb.console.failure.innerText()).toContain("CallRejected");
    await screenshot(s.browser.page, "program-read-only-rejected");
  });

  it("inserts a typed call from an operation with Use in program", async () => {
    await s.wb.sidebar.openOperation("Get a pet by id");
    await s.wb.operation().useInProgram();
    const editor = s.wb.editor();
    await expect.poll(() => editor.text()).toContain("await apis.petstore.getPet({ petId: ");
    await screenshot(s.browser.page, "program-use-in-program");
  });

  it("keeps programs across a restart of the page", async () => {
    const editor = s.wb.editor();
    await editor.setCode("// kept across reloads\nreturn 42;");
    await s.browser.page.waitForTimeout(800); // the save debounce
    await s.browser.page.reload();
    await s.wb.page.locator(".app").waitFor();
    await expect.poll(async () => (await s.wb.page.getByRole("tablist", { name: "Open tabs" }).getByRole("tab").allInnerTexts()).length).toBe(2);
    const saved = await s.wb.channel<{ name: string; code: string }[]>("programs.list");
    expect(saved.map((p) => p.code)).toEqual(expect.arrayContaining([expect.stringContaining("// kept across reloads")]));
    await s.wb.tab(saved.find((p) => p.code.includes("kept across"))!.name).click();
    await expect.poll(() => s.wb.editor().text()).toContain("// kept across reloads");
    expect(s.browser.pageErrors).toEqual([]);
  });
});
