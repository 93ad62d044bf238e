/**
 * `npm run bench -- renderer`: what the UI costs to ship and to start. The
 * size of dist/renderer, and in Debian's Chromium against a real loopback
 * server over the demo data: the time until the first screen is usable (the
 * API list shows the demo API and the first program's Monaco editor has
 * rendered its text) and the bytes the window fetched by then, cold cache,
 * median of several windows. Set WORKBENCH_RENDERER_DIR to measure another
 * build (e.g. the one before Monaco was trimmed, for the baseline below).
 */
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { rendererDir } from "../electron/host/common/assets.ts";
import { Workbench } from "../electron/host/workbench.ts";
import { startWorkbenchServer } from "../electron/serve.ts";
import { tempDataDir, TEST_VAULT_KEY } from "../electron/serve/test-support.ts";
import { percentile, type BenchRow, type BenchSection } from "./table.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const WINDOWS = 5;
/**
 * The same measures of the build before Monaco was trimmed (`import * as monaco from "monaco-editor"`: every
 * language, the CSS/HTML/JSON services and workers) and before the editor's chunk was fetched at start; p50 of
 * two runs of this bench on the 2-core CI machine under load.
 */
const BEFORE = { bytes: 14_871_104, files: 99, firstScreenBytes: 4_800_000, firstScreenMs: 1_800 };

function folderSize(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
    files++;
  }
  return { bytes, files };
}

export default async function rendererBench(): Promise<BenchSection> {
  const dir = process.env.WORKBENCH_RENDERER_DIR ?? rendererDir();
  const title = "Renderer (dist/renderer; first screen in Chromium over the demo API)";
  if (!existsSync(join(dir, "index.html"))) return { title, rows: [{ name: "renderer build", value: 0, unit: "", note: `${dir} is not built: npm run build` }] };
  const size = folderSize(dir);
  const rows: BenchRow[] = [
    { name: "dist/renderer on disk", value: Math.round(size.bytes / 1e4) / 100, unit: "MB", baseline: { name: "all of Monaco", value: Math.round(BEFORE.bytes / 1e4) / 100 } },
    { name: "dist/renderer files", value: size.files, unit: "files", baseline: { name: "all of Monaco", value: BEFORE.files } },
  ];
  if (!existsSync(CHROMIUM)) return { title, rows: [...rows, { name: "first screen", value: 0, unit: "", note: `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)` }] };

  const dataDir = tempDataDir("wb-bench-renderer-");
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
  if (!opened.ok) throw new Error(opened.message);
  const server = await startWorkbenchServer({ workbench: opened.workbench, kind: "serve", shell: "browser", rendererDir: dir, reusePort: false });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  const times: number[] = [];
  const downloads: number[] = [];
  try {
    for (let i = 0; i < WINDOWS; i++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      let bytes = 0;
      page.on("response", (res) => (bytes += Number(res.headers()["content-length"] ?? 0)));
      const started = performance.now();
      await page.goto(server.openUrl);
      await page.locator(".srow-api-name", { hasText: /^petstore$/ }).waitFor({ timeout: 60_000 });
      await page.locator(".program .monaco-editor .view-lines .view-line").first().waitFor({ timeout: 60_000 });
      times.push(performance.now() - started);
      downloads.push(bytes);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
    await opened.workbench.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const p50 = (values: number[]) => percentile(values, 50);
  rows.push(
    {
      name: "fetched by the first screen, fresh window",
      value: Math.round(p50(downloads) / 1e4) / 100,
      unit: "MB",
      baseline: { name: "all of Monaco", value: Math.round(BEFORE.firstScreenBytes / 1e4) / 100 },
    },
    {
      name: `first screen usable, p50 of ${WINDOWS} cold windows`,
      value: Math.round(p50(times)),
      unit: "ms",
      baseline: { name: "all of Monaco", value: BEFORE.firstScreenMs },
      target: "<= 1500 ms",
      ok: p50(times) <= 1500,
      note: `range ${Math.round(Math.min(...times))}–${Math.round(Math.max(...times))} ms`,
    },
  );
  return { title, rows };
}
