/**
 * Debian's Chromium driven by playwright-core (never `playwright install`),
 * with a fresh profile per test file.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { REPO } from "./serve.ts";

export const SCREENSHOTS = join(REPO, "e2e/screenshots");

export interface BrowserHandle {
  context: BrowserContext;
  page: Page;
  /** Errors the page threw; a test fails on any. */
  pageErrors: string[];
  close(): Promise<void>;
}

export async function launchBrowser(options: { colorScheme?: "light" | "dark"; width?: number; height?: number } = {}): Promise<BrowserHandle> {
  const profile = mkdtempSync(join(tmpdir(), "workbench-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? "light",
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  return {
    context,
    page,
    pageErrors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot under e2e/screenshots/ (gitignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}
