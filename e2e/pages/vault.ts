/** The vault view. */
import type { Locator, Page } from "playwright-core";

export class VaultView {
  readonly page: Page;
  readonly root: Locator;
  constructor(page: Page, panel: Locator) {
    this.page = page;
    this.root = panel.locator(".vault");
  }
  item(name: string): Locator {
    return this.root.getByRole("region", { name: `Vault item ${name}` });
  }
  async addSecret(item: string, field: string, value: string, allowApis: string[]): Promise<void> {
    await this.root.getByRole("button", { name: "Add a secret" }).click();
    const form = this.root.getByRole("form", { name: "Add a secret" });
    await form.getByLabel("Item").fill(item);
    await form.getByLabel("Field").fill(field);
    await form.getByLabel("Value", { exact: true }).fill(value);
    for (const api of allowApis) await form.getByRole("checkbox", { name: api }).check();
    await form.getByRole("button", { name: "Save secret" }).click();
    await this.item(item).waitFor();
  }
  async reveal(item: string, field: string): Promise<string> {
    const row = this.item(item).locator("tr").filter({ hasText: field });
    await row.getByRole("button", { name: "Reveal" }).click();
    return (await row.getByTestId("vault-revealed").textContent()) ?? "";
  }
}
