/** The Connect an agent view. */
import type { Locator } from "playwright-core";

export class ConnectView {
  readonly root: Locator;
  constructor(panel: Locator) {
    this.root = panel.locator(".connect");
  }
  get mcpUrl(): Locator {
    return this.root.getByTestId("mcp-url");
  }
  async snippet(client: "Claude Desktop" | "Claude Code" | "Cursor"): Promise<string> {
    await this.root.getByRole("tab", { name: client }).click();
    return (await this.root.locator(".connect-code pre").textContent()) ?? "";
  }
}
