import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { openSession, type Session } from "./support/session.ts";

const SECRET = "s3cr3t-VALUE-e2e-7f2c";

describe("the vault", () => {
  let s: Session;
  beforeAll(async () => {
    s = await openSession();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("creates an item whose value stays masked", async () => {
    const vault = await s.wb.openVault();
    await vault.addSecret("e2e", "secret", SECRET, ["petstore"]);
    const item = vault.item("e2e");
    expect(await item.innerText()).toContain("vault.e2e.secret");
    expect(await item.innerText()).toContain("petstore");
    expect(await s.browser.page.locator("body").innerText()).not.toContain(SECRET);
    await screenshot(s.browser.page, "vault-masked");
  });

  it("a program that uses it shows only the hidden marker", async () => {
    const editor = await s.wb.newProgram();
    await editor.setPolicy("all");
    await editor.setCode('const pet = await apis.petstore.createPet({ body: { name: vault.e2e.secret, status: "available" } });\nconsole.log(`created ${pet.body.name}`);\nreturn pet.body;');
    await editor.run();
    await s.wb.console.waitForStatus("pending");

    // The inbox shows the reference, not the value.
    const inbox = await s.wb.openInbox();
    const card = inbox.card("/pets");
    await card.waitFor();
    expect(await card.innerText()).toContain("⟦vault:e2e/secret⟧");
    expect(await s.browser.page.locator("body").innerText()).not.toContain(SECRET);
    await screenshot(s.browser.page, "vault-inbox-reference");
    await inbox.approve(card);

    await s.wb.console.waitForStatus("completed");
    const result = await s.wb.console.result.innerText();
    expect(result).toContain("⟦hidden:e2e/secret⟧");
    expect(await (await s.wb.console.showLogs()).innerText()).toContain("⟦hidden:e2e/secret⟧");
    expect(await s.browser.page.locator("body").innerText()).not.toContain(SECRET);
    await screenshot(s.browser.page, "vault-hidden-in-output");
  });

  it("reveals a value only on request", async () => {
    const vault = await s.wb.openVault();
    expect(await vault.reveal("e2e", "secret")).toBe(SECRET);
    expect(s.browser.pageErrors).toEqual([]);
  });
});
