/** The Sign-in section of an API's settings, and the provider's pages a person goes through in the popup. */
import type { Locator, Page } from "playwright-core";

export class SignInSection {
  readonly page: Page;
  readonly root: Locator;
  constructor(page: Page) {
    this.page = page;
    this.root = page.getByRole("region", { name: "Sign-in" });
  }

  static async open(page: Page, api: string): Promise<SignInSection> {
    await page.getByRole("button", { name: `Settings of ${api}` }).first().click({ force: true });
    const section = new SignInSection(page);
    await section.root.waitFor();
    return section;
  }

  state(): Locator {
    return this.root.locator(".signin-state");
  }

  /** Clicks Sign in; the provider's page opens in a new tab (the system browser's), which this returns. */
  async signIn(): Promise<Page> {
    const popup = this.page.waitForEvent("popup");
    await this.root.getByRole("button", { name: /^Sign in( again)?$/ }).click();
    return popup;
  }
}

/** oidc-provider's development login and consent pages. */
export async function loginAndConsent(page: Page, login: string): Promise<void> {
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "any");
  await page.click('button[type="submit"]');
  await page.waitForSelector("text=Authorize");
  await page.click('button[type="submit"]');
}
