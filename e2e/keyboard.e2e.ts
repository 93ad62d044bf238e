import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { openSession, type Session } from "./support/session.ts";

describe("keyboard", () => {
  let s: Session;
  beforeAll(async () => {
    s = await openSession();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("finds and opens an operation without the mouse", async () => {
    const page = s.browser.page;
    await page.locator("body").click({ position: { x: 700, y: 860 } });
    await page.keyboard.press("/");
    const focused = page.locator("*:focus");
    await expect.poll(() => focused.getAttribute("aria-label")).toBe("Filter operations by text");
    await page.keyboard.type("inventory");
    await page.keyboard.press("ArrowDown");
    await expect.poll(async () => (await focused.textContent()) ?? "").toContain("Count pets by status");
    await page.keyboard.press("Enter");
    await s.wb.operation().title.filter({ hasText: "Count pets by status" }).waitFor();
    await screenshot(page, "keyboard-operation");
  });

  it("opens views and programs with shortcuts, and moves along the tab strip", async () => {
    const page = s.browser.page;
    await page.keyboard.press("Alt+V");
    await s.wb.tab("Vault").waitFor();
    await page.keyboard.press("Alt+H");
    await s.wb.tab("Runs").waitFor();
    await page.keyboard.press("Alt+N");
    await s.wb.editor().ready();
    const tabs = s.wb.page.getByRole("tablist", { name: "Open tabs" }).getByRole("tab");
    const before = await tabs.count();
    await page.keyboard.press("Alt+W");
    await expect.poll(() => tabs.count()).toBe(before - 1);
    await tabs.first().focus();
    await page.keyboard.press("ArrowRight");
    expect(await tabs.nth(1).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await help.waitFor();
    await screenshot(page, "keyboard-shortcuts");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
    expect(s.browser.pageErrors).toEqual([]);
  });
});
