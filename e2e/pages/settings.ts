/** The Settings view: the limits agent programs run under. */
import type { Locator } from "playwright-core";

export type LimitLabel = "Memory" | "Compute time" | "Wall clock" | "API calls" | "Result size" | "Answer size";

export class SettingsView {
  readonly root: Locator;
  constructor(panel: Locator) {
    this.root = panel.locator(".settings");
  }
  field(label: LimitLabel): Locator {
    return this.root.getByLabel(label, { exact: true });
  }
  /** The row of a limit: its value field, range, problem and what is in effect. */
  row(label: LimitLabel): Locator {
    // `has` is matched inside each row, so its locator starts from the page, not from this view.
    return this.root.locator("tr").filter({ has: this.root.page().getByLabel(label, { exact: true }) });
  }
  async set(label: LimitLabel, value: string): Promise<void> {
    await this.field(label).fill(value);
  }
  get saveButton(): Locator {
    return this.root.getByRole("button", { name: "Save limits" });
  }
  async save(): Promise<void> {
    await this.saveButton.click();
  }
}
