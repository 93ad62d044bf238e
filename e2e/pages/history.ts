/** The runs history and one reopened run. */
import type { Locator, Page } from "playwright-core";
import { RunConsole } from "./editor.ts";

export class HistoryView {
  readonly page: Page;
  readonly root: Locator;
  constructor(page: Page, panel: Locator) {
    this.page = page;
    this.root = panel.locator(".history");
  }
  get rows(): Locator {
    return this.root.locator(".history-row");
  }
  row(runId: string): Locator {
    return this.rows.filter({ has: this.page.locator(".history-id", { hasText: new RegExp(`^${runId}$`) }) });
  }
  async search(text: string): Promise<void> {
    await this.root.getByRole("searchbox", { name: "Search runs" }).fill(text);
  }
  async filterStatus(status: string): Promise<void> {
    await this.root.getByRole("group", { name: "Filter by status" }).getByRole("button", { name: status, exact: true }).click();
  }
  async filterSource(source: "ui" | "mcp" | "cli" | ""): Promise<void> {
    await this.root.getByRole("combobox", { name: "Filter by source" }).selectOption(source);
  }
}

export class RunView {
  readonly page: Page;
  readonly root: Locator;
  readonly detail: RunConsole;
  constructor(page: Page, panel: Locator) {
    this.page = page;
    this.root = panel.locator(".runview");
    this.detail = new RunConsole(this.root);
  }
  get id(): Locator {
    return this.root.locator(".runview-id");
  }
  get program(): Locator {
    return this.root.getByRole("region", { name: /^Program of / });
  }
  async replay(): Promise<void> {
    await this.root.getByRole("button", { name: "Replay" }).click();
  }
  async editAndRerun(): Promise<void> {
    await this.root.getByRole("button", { name: "Edit and re-run" }).click();
  }
  async export(format: "JSON" | "HAR"): Promise<string> {
    const download = this.page.waitForEvent("download");
    await this.root.getByRole("button", { name: `Export ${format}` }).click();
    const file = await download;
    return file.suggestedFilename();
  }
}
