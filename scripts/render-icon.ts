// `node scripts/render-icon.ts` draws the app's icon, build/icon.png (512×512:
// electron-builder makes every platform's sizes from it; the tray scales it
// down), from the renderer's favicon.svg in Debian's Chromium. Run it when the
// favicon changes and commit the PNG.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const svg = readFileSync(join(root, "renderer/public/favicon.svg"), "utf8");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage({ viewport: { width: 512, height: 512 } });
await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace("<svg ", '<svg width="512" height="512" ')}</body></html>`);
await page.screenshot({ path: join(root, "build/icon.png"), omitBackground: true });
await browser.close();
process.stdout.write("wrote build/icon.png\n");
