/**
 * Accessibility pass with axe-core on the main screens, in both themes: no
 * serious or critical violations. Lesser findings are printed, not failed on.
 */
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { openSession, type Session } from "./support/session.ts";

async function audit(page: Page, screen: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const minor = results.violations.filter((v) => !bad.includes(v));
  console.log(`[axe] ${screen}: ${bad.length} serious/critical, ${minor.length} minor (${minor.map((v) => `${v.id}×${v.nodes.length}`).join(", ") || "none"})`);
  if (process.env.AXE_VERBOSE) for (const v of minor) console.log(`[axe] ${screen}: minor ${v.id}: ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`);
  const found = bad.map((v) => `${screen}: ${v.id} (${v.impact}) ${v.help}\n  ${v.nodes.slice(0, 4).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1, 2).join("") ?? ""}`).join("\n  ")}`);
  for (const line of found) console.log(`[axe] ${line}`);
  return found;
}

for (const scheme of ["light", "dark"] as const) {
  describe(`accessibility (${scheme})`, () => {
    let s: Session;
    beforeAll(async () => {
      s = await openSession({ colorScheme: scheme });
    });
    afterAll(async () => {
      await s?.close();
    });

    it("has no serious or critical violations on the main screens", async () => {
      const { wb } = s;
      const page = s.browser.page;
      const problems: string[] = [];

      await wb.editor().ready();
      await wb.editor().run();
      await wb.console.waitForStatus("completed");
      await wb.console.expandCall(0);
      problems.push(...(await audit(page, "main window with a run")));
      await screenshot(page, `a11y-${scheme}-main`);

      await wb.sidebar.openOperation("Add a pet");
      await wb.operation().title.waitFor();
      problems.push(...(await audit(page, "operation")));

      const editor = await wb.newProgram();
      await editor.setPolicy("all");
      await editor.setCode('return (await apis.petstore.createPet({ body: { name: "A11y" } })).body;');
      await editor.run();
      await wb.console.waitForStatus("pending");
      const inbox = await wb.openInbox();
      await inbox.cards.first().waitFor();
      problems.push(...(await audit(page, "approvals inbox")));
      await screenshot(page, `a11y-${scheme}-inbox`);
      await inbox.approve(inbox.cards.first());
      await wb.console.waitForStatus("completed");

      const history = await wb.openRuns();
      await history.rows.first().waitFor();
      problems.push(...(await audit(page, "runs")));
      await history.rows.first().click();
      await wb.runView().id.waitFor();
      problems.push(...(await audit(page, "run")));

      await wb.openVault();
      await wb.activePanel.locator(".vault-item").first().waitFor();
      problems.push(...(await audit(page, "vault")));

      const connect = await wb.openConnect();
      await connect.mcpUrl.waitFor();
      problems.push(...(await audit(page, "connect")));

      const settings = await wb.openSettings();
      await settings.field("Memory").waitFor();
      await settings.set("Memory", "1");
      problems.push(...(await audit(page, "settings (with a field in error)")));

      const dialog = await wb.openAddApi();
      await dialog.root.waitFor();
      problems.push(...(await audit(page, "add an API")));
      await page.keyboard.press("Escape");

      await page.keyboard.press("?");
      await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
      problems.push(...(await audit(page, "shortcuts")));
      await page.keyboard.press("Escape");

      expect(problems).toEqual([]);
      expect(s.browser.pageErrors).toEqual([]);
    });
  });
}
