/** The approvals inbox. */
import type { Locator, Page } from "playwright-core";

export class InboxView {
  readonly page: Page;
  readonly root: Locator;
  constructor(page: Page, panel: Locator) {
    this.page = page;
    this.root = panel.locator(".inbox");
  }
  get cards(): Locator {
    return this.root.locator("article.decision");
  }
  card(text: string | RegExp): Locator {
    return this.cards.filter({ hasText: text });
  }
  /** Approves the call, or the whole plan ("Approve all N writes"). */
  async approve(card: Locator): Promise<void> {
    await card.getByRole("button", { name: /^Approve( all \d+ writes?)? A/ }).click();
  }
  async approveWithKeyboard(card: Locator): Promise<void> {
    await card.focus();
    await this.page.keyboard.press("a");
  }
  async deny(card: Locator, message?: string): Promise<void> {
    await card.getByRole("button", { name: /^Deny…/ }).click();
    if (message) await card.getByRole("textbox").fill(message);
    await card.getByRole("button", { name: "Deny", exact: true }).click();
  }
  get empty(): Locator {
    return this.root.getByRole("heading", { name: "Nothing waits for you" });
  }
}
