/** One test file's world: a real `workbench serve` and a Chromium tab on it. */
import { launchBrowser, type BrowserHandle } from "./browser.ts";
import { startServe, type ServeHandle } from "./serve.ts";
import { WorkbenchPage } from "../pages/workbench.ts";

export interface Session {
  serve: ServeHandle;
  browser: BrowserHandle;
  wb: WorkbenchPage;
  close(): Promise<void>;
}

/** `serveArgs` are extra flags for `workbench serve` (e.g. agent limits). */
export async function openSession(options: { dataDir?: string; colorScheme?: "light" | "dark"; serveArgs?: string[] } = {}): Promise<Session> {
  const serve = await startServe({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...(options.serveArgs ? { args: options.serveArgs } : {}) });
  let browser: BrowserHandle | undefined;
  try {
    browser = await launchBrowser(options.colorScheme ? { colorScheme: options.colorScheme } : {});
    const wb = await WorkbenchPage.open(browser.page, serve.url);
    const b = browser;
    return {
      serve,
      browser: b,
      wb,
      async close() {
        await b.close();
        await serve.stop();
      },
    };
  } catch (err) {
    await browser?.close();
    await serve.stop();
    throw err;
  }
}
