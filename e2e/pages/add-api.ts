/** The Add an API dialog. */
import type { Locator } from "playwright-core";

export class AddApiDialog {
  readonly root: Locator;
  constructor(root: Locator) {
    this.root = root;
  }
  async chooseFile(path: string): Promise<void> {
    await this.root.getByTestId("spec-file").setInputFiles(path);
  }
  async paste(text: string): Promise<void> {
    await this.root.getByRole("tab", { name: "Paste" }).click();
    await this.root.getByRole("textbox", { name: "Spec text" }).fill(text);
    await this.root.getByRole("button", { name: "Read" }).click();
  }
  get report(): Locator {
    return this.root.getByTestId("repair-report");
  }
  get summary(): Locator {
    return this.root.locator(".addapi-summary");
  }
  get nameInput(): Locator {
    return this.root.getByLabel(/^Name/);
  }
  get baseUrlInput(): Locator {
    return this.root.getByLabel("Base URL");
  }
  async add(): Promise<void> {
    await this.root.getByRole("button", { name: "Add API" }).click();
  }
}
