/** A program tab (Monaco) and the run console below it. */
import type { Locator, Page } from "playwright-core";

export class ProgramEditor {
  readonly page: Page;
  readonly root: Locator;
  constructor(page: Page, panel: Locator) {
    this.page = page;
    this.root = panel.locator(".program");
  }

  get monaco(): Locator {
    return this.root.locator(".monaco-editor");
  }

  async ready(): Promise<void> {
    await this.monaco.locator(".view-lines").waitFor();
  }

  /** Replaces the whole program (pasted at once, so completion does not interfere). */
  async setCode(code: string): Promise<void> {
    await this.ready();
    await this.monaco.locator(".view-lines").click();
    await this.page.keyboard.press("ControlOrMeta+A");
    await this.page.keyboard.press("Delete");
    await this.page.keyboard.insertText(code);
  }

  /** Types like a person, so completion pops up. */
  async type(text: string): Promise<void> {
    await this.page.keyboard.type(text, { delay: 60 });
  }

  /** The program's text as displayed (Monaco renders spaces as non-breaking). */
  async text(): Promise<string> {
    return ((await this.monaco.locator(".view-lines").innerText()) ?? "").replace(/\u00a0/g, " ");
  }

  /** The visible rows of the completion list. */
  get suggestions(): Locator {
    return this.page.locator(".monaco-editor .suggest-widget.visible .monaco-list-row");
  }

  async setPolicy(policy: "read_only" | "all"): Promise<void> {
    await this.root.getByRole("radio", { name: policy === "all" ? "Can write (asks you)" : "Read-only" }).click();
  }

  async run(): Promise<void> {
    await this.root.getByRole("button", { name: /^Run/ }).click();
  }

  async runWithKeyboard(): Promise<void> {
    await this.monaco.locator(".view-lines").click();
    await this.page.keyboard.press("ControlOrMeta+Enter");
  }
}

export class RunConsole {
  readonly root: Locator;
  constructor(root: Locator) {
    this.root = root;
  }
  get status(): Locator {
    return this.root.getByTestId("run-status");
  }
  async waitForStatus(status: string, timeout = 30_000): Promise<void> {
    await this.root.getByTestId("run-status").filter({ hasText: status }).waitFor({ timeout });
  }
  get calls(): Locator {
    return this.root.locator(".timeline > li");
  }
  async expandCall(index: number): Promise<Locator> {
    const call = this.calls.nth(index);
    await call.locator(".call-row").click();
    return call.locator(".call-detail");
  }
  get result(): Locator {
    return this.root.getByRole("group", { name: "Result" });
  }
  async showLogs(): Promise<Locator> {
    await this.root.getByRole("tab", { name: /^Logs/ }).click();
    return this.root.locator(".run-logs");
  }
  get failure(): Locator {
    return this.root.locator(".run-banner.error-banner");
  }
  get runId(): Locator {
    return this.root.locator(".console-id");
  }
}
