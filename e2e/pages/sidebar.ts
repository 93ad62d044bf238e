/** The API list on the left. */
import type { Locator, Page } from "playwright-core";

export class Sidebar {
  readonly root: Locator;
  constructor(page: Page) {
    this.root = page.getByRole("complementary", { name: "APIs and operations" });
  }

  get filterBox(): Locator {
    return this.root.getByRole("searchbox", { name: "Filter operations by text" });
  }

  api(name: string): Locator {
    return this.root.locator(".srow-api").filter({ has: this.root.page().locator(".srow-api-name", { hasText: new RegExp(`^${name}$`) }) });
  }

  operations(): Locator {
    return this.root.locator(".srow-op");
  }

  operation(summary: string | RegExp): Locator {
    return this.root.locator(".srow-op .srow-main").filter({ hasText: summary });
  }

  group(name: string): Locator {
    return this.root.locator(".srow-group .srow-main").filter({ hasText: name });
  }

  async filter(text: string): Promise<void> {
    await this.filterBox.fill(text);
  }

  async toggleMethod(method: string): Promise<void> {
    await this.root.getByRole("group", { name: "Filter by method" }).getByRole("button", { name: method, exact: true }).click();
  }

  async groupBy(mode: "tag" | "path"): Promise<void> {
    await this.root.getByRole("button", { name: mode === "tag" ? "By tag" : "By path" }).click();
  }

  async openOperation(summary: string | RegExp): Promise<void> {
    await this.operation(summary).first().click();
  }

  /** The scrolling element of the virtualised list. */
  get list(): Locator {
    return this.root.getByRole("list", { name: "Operations" });
  }
}
