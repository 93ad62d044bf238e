/** An operation's documentation tab. */
import type { Locator } from "playwright-core";

export class OperationView {
  readonly root: Locator;
  constructor(panel: Locator) {
    this.root = panel.locator("article.opdoc");
  }
  get title(): Locator {
    return this.root.locator(".opdoc-title");
  }
  get path(): Locator {
    return this.root.locator(".opdoc-path");
  }
  parameter(name: string): Locator {
    return this.root.locator(".opdoc-params tbody tr").filter({ hasText: name });
  }
  schemaNode(label: string): Locator {
    return this.root.locator(".schema-row").filter({ has: this.root.page().locator(".schema-name", { hasText: new RegExp(`^${label}$`) }) });
  }
  async expand(label: string): Promise<void> {
    await this.schemaNode(label).first().getByRole("button", { name: `Expand ${label}` }).click();
  }
  async useInProgram(): Promise<void> {
    await this.root.getByRole("button", { name: "Use in program" }).click();
  }
}
