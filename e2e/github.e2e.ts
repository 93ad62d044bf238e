/**
 * GitHub's REST spec (1,223 operations) registered: how fast the window is
 * usable and whether the operation list scrolls without jank. Figures are
 * printed, never asserted as timings (machines differ); the test asserts only
 * that the work happened.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubSpecPath } from "../scripts/fixtures.ts";
import { launchBrowser, screenshot, type BrowserHandle } from "./support/browser.ts";
import { freshDataDir, startServe, workbenchCli, type ServeHandle } from "./support/serve.ts";
import { WorkbenchPage } from "./pages/workbench.ts";

describe("GitHub's spec in the workbench", () => {
  let serve: ServeHandle;
  let browser: BrowserHandle;
  beforeAll(async () => {
    const dataDir = freshDataDir();
    const added = workbenchCli(["api", "add", "github", githubSpecPath(), "--base-url", "https://api.github.com", "--data-dir", dataDir]);
    expect(added.status, added.stderr).toBe(0);
    serve = await startServe({ dataDir });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it("is usable quickly and scrolls smoothly (figures in the output)", async () => {
    const { page } = browser;
    const started = Date.now();
    const wb = await WorkbenchPage.open(page, serve.url);
    await wb.sidebar.api("github").waitFor();
    await wb.sidebar.group("actions").waitFor();
    const usableMs = Date.now() - started;
    const nav = await page.evaluate(() => {
      // Runs in the page; this file type-checks without the DOM library.
      const timing = performance as unknown as { getEntriesByType(type: string): { domContentLoadedEventEnd: number; loadEventEnd: number }[] };
      const entry = timing.getEntriesByType("navigation")[0]!;
      return { domContentLoaded: Math.round(entry.domContentLoadedEventEnd), load: Math.round(entry.loadEventEnd) };
    });

    // Filter to something and open it, as a person would.
    const t1 = Date.now();
    await wb.sidebar.filter("get a repository");
    await wb.sidebar.operation(/^GETGet a repository/).first().click();
    await wb.operation().title.filter({ hasText: "Get a repository" }).waitFor();
    const openOpMs = Date.now() - t1;
    await screenshot(page, "github-operation");

    // Every GET operation, unfolded: about 650 rows in a virtualised list.
    await wb.sidebar.filter("");
    await wb.sidebar.toggleMethod("GET");
    await wb.sidebar.groupBy("path");
    const scroll = await wb.sidebar.list.evaluate(async (list) => {
      const requestAnimationFrame = (globalThis as unknown as { requestAnimationFrame(callback: () => void): number }).requestAnimationFrame;
      const frames: number[] = [];
      let last = performance.now();
      const height = list.scrollHeight;
      await new Promise<void>((resolve) => {
        const step = () => {
          const now = performance.now();
          frames.push(now - last);
          last = now;
          list.scrollTop += 100;
          if (list.scrollTop + list.clientHeight < height) requestAnimationFrame(step);
          else resolve();
        };
        requestAnimationFrame(step);
      });
      frames.shift();
      const sorted = [...frames].sort((a, b) => a - b);
      const pct = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 10) / 10;
      return { scrolledPx: height, frames: frames.length, p50: pct(0.5), p95: pct(0.95), max: pct(1), longFrames: frames.filter((f) => f > 50).length, rowsInDom: list.querySelectorAll("[role=listitem]").length };
    });
    await screenshot(page, "github-scrolled");

    // Completion over GitHub's declarations (a few MB of .d.ts in Monaco's TypeScript worker).
    const editor = await wb.newProgram();
    await editor.setCode("");
    const t2 = Date.now();
    await editor.type("apis.github.reposG");
    await editor.suggestions.filter({ hasText: "reposGet" }).first().waitFor({ timeout: 60_000 });
    const firstCompletionMs = Date.now() - t2;
    await screenshot(page, "github-completion");

    const figures = { usableMs, ...nav, openOperationMs: openOpMs, firstCompletionMs, scroll };
    console.log(`[github] ${JSON.stringify(figures)}`);
    expect(scroll.frames).toBeGreaterThan(50);
    expect(scroll.rowsInDom).toBeLessThan(120);
    expect(browser.pageErrors).toEqual([]);
  });
});
