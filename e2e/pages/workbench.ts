/** Page object for the window as a whole: top bar, sidebar, tabs, and the views they open. */
import type { Locator, Page } from "playwright-core";
import { AddApiDialog } from "./add-api.ts";
import { ConnectView } from "./connect.ts";
import { ProgramEditor, RunConsole } from "./editor.ts";
import { HistoryView, RunView } from "./history.ts";
import { InboxView } from "./inbox.ts";
import { OperationView } from "./operation.ts";
import { SettingsView } from "./settings.ts";
import { Sidebar } from "./sidebar.ts";
import { VaultView } from "./vault.ts";

export class WorkbenchPage {
  readonly page: Page;
  readonly sidebar: Sidebar;
  readonly console: RunConsole;

  constructor(page: Page) {
    this.page = page;
    this.sidebar = new Sidebar(page);
    this.console = new RunConsole(page.locator(".app-console"));
  }

  /** Opens the URL `workbench serve` printed and waits for the window. */
  static async open(page: Page, url: string): Promise<WorkbenchPage> {
    await page.goto(url);
    await page.locator(".app").waitFor();
    return new WorkbenchPage(page);
  }

  /** The visible tab's panel. */
  get activePanel(): Locator {
    return this.page.locator(".app-tab-panel:not([hidden])");
  }

  tab(name: string | RegExp): Locator {
    return this.page.getByRole("tab", { name });
  }

  async inboxCount(): Promise<number> {
    return Number(await this.page.getByTestId("inbox-badge").textContent());
  }

  editor(): ProgramEditor {
    return new ProgramEditor(this.page, this.activePanel);
  }

  operation(): OperationView {
    return new OperationView(this.activePanel);
  }

  async newProgram(): Promise<ProgramEditor> {
    await this.page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "New program" }).click();
    const editor = this.editor();
    await editor.ready();
    return editor;
  }

  async openInbox(): Promise<InboxView> {
    await this.page.getByRole("button", { name: /^Approvals/ }).click();
    return new InboxView(this.page, this.activePanel);
  }

  async openRuns(): Promise<HistoryView> {
    await this.page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Runs" }).click();
    return new HistoryView(this.page, this.activePanel);
  }

  runView(): RunView {
    return new RunView(this.page, this.activePanel);
  }

  async openVault(): Promise<VaultView> {
    await this.page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Vault" }).click();
    return new VaultView(this.page, this.activePanel);
  }

  async openConnect(): Promise<ConnectView> {
    await this.page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Connect an agent" }).click();
    return new ConnectView(this.activePanel);
  }

  async openSettings(): Promise<SettingsView> {
    await this.page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Settings" }).click();
    return new SettingsView(this.activePanel);
  }

  async openAddApi(): Promise<AddApiDialog> {
    await this.page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Add API" }).click();
    return new AddApiDialog(this.page.getByRole("dialog", { name: "Add an API" }));
  }

  /** Calls a bridge channel with this tab's session, as the renderer does. */
  async channel<T>(channel: string, request: unknown = {}): Promise<T> {
    return this.page.evaluate(
      async ([c, r]) => {
        const res = await fetch(`/api/${c}`, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(r) });
        if (!res.ok) throw new Error(`${c}: HTTP ${res.status} ${await res.text()}`);
        return res.json();
      },
      [channel, request] as const,
    ) as Promise<T>;
  }
}
