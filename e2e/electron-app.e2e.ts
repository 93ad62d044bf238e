/**
 * The desktop app itself: Playwright's `_electron` drives the real Electron
 * binary over the built bundle. It checks what the stand-in run
 * (electron/stand-in/app.test.ts) cannot: Chromium loading the UI from
 * app://workbench under the CSP, the sandboxed preload exposing exactly the
 * contract, navigation and new windows refused by the real browser, the OS
 * keychain sealing the vault, and a write approved in the window.
 *
 * Where Electron cannot start (no binary: it downloads on first use, which
 * these CI machines cannot; or no display), the suite is skipped and says why.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { _electron, type ElectronApplication, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildElectron, electronBinary, electronBuildIsStale, electronUnavailable } from "../scripts/electron-build.ts";
import { WorkbenchPage } from "./pages/workbench.ts";
import { REPO } from "./support/serve.ts";

/** What these tests read of the page's globals (this file type-checks without the DOM library). */
interface PageGlobals {
  workbench?: Record<string, unknown> & { appInfo(request: object): Promise<{ shell: string }> };
  require?: unknown;
  process?: unknown;
  __inlineRan?: boolean;
  open(url: string): unknown;
  location: { href: string };
  document: { createElement(tag: string): { textContent: string }; body: { append(node: unknown): void } };
}

const why = electronUnavailable() ?? (existsSync(join(REPO, "dist/renderer/index.html")) ? undefined : "the renderer is not built (npm run build)");
if (why) process.stdout.write(`e2e/electron-app.e2e.ts: skipped: ${why}\n`);

describe.skipIf(!!why)(why ? `the desktop app (skipped: ${why})` : "the desktop app (real Electron)", () => {
  let app: ElectronApplication;
  let page: Page;
  let dataDir: string;

  beforeAll(async () => {
    if (await electronBuildIsStale()) await buildElectron();
    const found = electronBinary();
    if (!found.ok) throw new Error(found.why);
    dataDir = mkdtempSync(join(tmpdir(), "workbench-electron-e2e-"));
    const root = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
    app = await _electron.launch({ executablePath: found.binary, args: [...root, REPO, "--data-dir", dataDir], cwd: REPO, timeout: 60_000 });
    page = await app.firstWindow();
    await page.locator(".app").waitFor({ timeout: 60_000 });
  });

  afterAll(async () => {
    await app?.close();
    if (dataDir) {
      expect(existsSync(join(dataDir, "serve.lock.json"))).toBe(false);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("loads the UI from app://workbench, with the contract's methods and nothing of Node", async () => {
    expect(page.url()).toBe("app://workbench/index.html");
    const seen = await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      return { require: typeof w.require, process: typeof w.process, apisList: typeof w.workbench?.apisList, invoke: w.workbench ? "invoke" in w.workbench : null };
    });
    expect(seen).toEqual({ require: "undefined", process: "undefined", apisList: "function", invoke: false });
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).workbench!.appInfo({}))).toMatchObject({ shell: "electron" });
  });

  it("enforces the CSP: no eval, no inline script", async () => {
    const blocked = await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      let evalBlocked = false;
      try {
        (0, eval)("1");
      } catch {
        evalBlocked = true;
      }
      const script = w.document.createElement("script");
      script.textContent = "globalThis.__inlineRan = true";
      w.document.body.append(script);
      return { evalBlocked, inlineRan: w.__inlineRan === true };
    });
    expect(blocked).toEqual({ evalBlocked: true, inlineRan: false });
  });

  it("refuses navigation and new windows", async () => {
    const opened = await page.evaluate(() => (globalThis as unknown as PageGlobals).open("https://example.com/") === null);
    expect(opened).toBe(true);
    await page.evaluate(() => void ((globalThis as unknown as PageGlobals).location.href = "https://example.com/"));
    await page.waitForTimeout(500);
    expect(page.url()).toBe("app://workbench/index.html");
    expect(app.windows()).toHaveLength(1);
  });

  it("runs a write from the editor and approves it in the inbox; the vault is sealed by the OS keychain", async () => {
    const wb = new WorkbenchPage(page);
    const editor = await wb.newProgram();
    await editor.setCode('async () => (await apis.petstore.createPet({ body: { name: "Electra" } })).status');
    await editor.setPolicy("all");
    await editor.run();
    const inbox = await wb.openInbox();
    await inbox.approve(inbox.card(/POST/).first());
    await inbox.empty.waitFor();
    // The demo API's token, stored on first start, is sealed by safeStorage (the OS keychain), not the file key.
    expect(readFileSync(join(dataDir, "vault.json"), "utf8")).toMatch(/"cipher": ?"electron-safestorage-/);
  });
});
