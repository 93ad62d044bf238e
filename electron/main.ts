/**
 * The Electron main process: one window onto the workbench. It opens the
 * data directory's Workbench with the vault sealed by Electron's safeStorage
 * (the OS keychain), refusing the plaintext `basic_text` backend unless the
 * person accepts it; starts the loopback server for /mcp and for the CLI (no
 * renderer there: the window loads its files from the `app://workbench`
 * scheme, with the CSP); and serves the contract over IPC (ipc.ts).
 *
 * The window: context isolation, sandbox, no Node integration, navigation
 * and window.open denied (https links go to the browser), no permissions.
 *
 * Built to dist/electron/main.js by scripts/start.js; paths below are
 * relative to that bundle.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { app, BrowserWindow, dialog, ipcMain, protocol, safeStorage, session, shell } from "electron";
import { contentTypeOf } from "./host/common/content-types.ts";
import { resolveDataDir } from "./host/data-dir.ts";
import { failed } from "./host/handlers/failure.ts";
import { createHandlers } from "./host/handlers/index.ts";
import type { SecretCipher } from "./host/vault/cipher.ts";
import { Workbench } from "./host/workbench.ts";
import { APP_ORIGIN, forwardEvents, registerIpcHandlers } from "./ipc.ts";
import { startWorkbenchServer, type WorkbenchServer } from "./serve.ts";
import { CSP } from "./serve/security.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const RENDERER_DIR = join(HERE, "..", "renderer");
const PRELOAD = join(HERE, "preload.cjs");
const INDEX_URL = `${APP_ORIGIN}/index.html`;
const debug = !!process.env.WORKBENCH_DEBUG;
const log = (message: string) => console.error(`workbench: ${message}`);

protocol.registerSchemesAsPrivileged([{ scheme: "app", privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } }]);

let window: BrowserWindow | undefined;
let workbench: Workbench | undefined;
let server: WorkbenchServer | undefined;

/** The vault's cipher in the app: safeStorage, flagged when it would store values readably (Linux without a keyring). */
function safeStorageCipher(): SecretCipher {
  const backend = process.platform === "linux" ? safeStorage.getSelectedStorageBackend() : "os";
  return {
    id: `electron-safestorage-${process.platform}`,
    plaintextFallback: !safeStorage.isEncryptionAvailable() || backend === "basic_text",
    encrypt: (plain) => safeStorage.encryptString(plain.toString("utf8")),
    decrypt: (sealed) => Buffer.from(safeStorage.decryptString(sealed), "utf8"),
  };
}

function acceptsPlaintextVault(): boolean {
  const choice = dialog.showMessageBoxSync({
    type: "warning",
    title: "No system keyring",
    message: "This system offers no keyring to protect the vault.",
    detail: "Secrets would be stored in a form anyone who can read your files can decode. Quit and set up a keyring (GNOME Keyring, KWallet), or use the workbench anyway with secrets stored readably.",
    buttons: ["Quit", "Store secrets readably"],
    defaultId: 0,
    cancelId: 0,
  });
  return choice === 1;
}

function dataDirFromArgs(): string | undefined {
  const index = process.argv.indexOf("--data-dir");
  if (index >= 0) return process.argv[index + 1];
  return process.argv.find((a) => a.startsWith("--data-dir="))?.slice("--data-dir=".length);
}

/** Serves dist/renderer at app://workbench/, files only from inside it, with the CSP on HTML. */
function serveRendererProtocol(): void {
  protocol.handle("app", async (request) => {
    const url = new URL(request.url);
    const relative = normalize(decodeURIComponent(url.pathname === "/" ? "/index.html" : url.pathname).slice(1));
    const file = join(RENDERER_DIR, relative);
    if (url.host !== "workbench" || relative.startsWith("..") || !file.startsWith(RENDERER_DIR + sep)) return new Response("not found", { status: 404 });
    try {
      const body = await readFile(file);
      const type = contentTypeOf(file);
      const headers: Record<string, string> = { "content-type": type, "x-content-type-options": "nosniff" };
      if (type.startsWith("text/html")) headers["content-security-policy"] = CSP;
      return new Response(body, { headers });
    } catch {
      if (relative === "index.html") return new Response("The workbench UI has not been built: run npm run build, then restart.", { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } });
      return new Response("not found", { status: 404 });
    }
  });
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    show: false,
    title: "Codemode Workbench",
    webPreferences: { preload: PRELOAD, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
  });
  const contents = win.webContents;
  contents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith("https://")) void shell.openExternal(url);
    return { action: "deny" };
  });
  contents.on("will-navigate", (event, url) => {
    if (url !== INDEX_URL) event.preventDefault();
  });
  contents.on("will-redirect", (event) => event.preventDefault());
  contents.on("will-attach-webview", (event) => event.preventDefault());
  win.once("ready-to-show", () => win.show());
  win.on("closed", () => {
    if (window === win) window = undefined;
  });
  void win.loadURL(INDEX_URL);
  return win;
}

async function start(): Promise<void> {
  const dataDir = resolveDataDir({ flag: dataDirFromArgs(), env: process.env });
  const cipher = safeStorageCipher();
  const acceptPlaintext = cipher.plaintextFallback ? acceptsPlaintextVault() : false;
  if (cipher.plaintextFallback && !acceptPlaintext) return app.quit();

  const opened = Workbench.open({ dataDir, env: process.env, cipher, acceptPlaintextVault: acceptPlaintext, log: debug ? log : () => {} });
  if (!opened.ok) {
    dialog.showErrorBox("Codemode Workbench cannot start", opened.message);
    return app.quit();
  }
  workbench = opened.workbench;
  for (const notice of opened.notices) log(notice);

  try {
    server = await startWorkbenchServer({ workbench, kind: "app", shell: "electron", rendererDir: false, log, version: app.getVersion() });
    log(`MCP endpoint at ${server.mcpUrl}`);
  } catch (err) {
    // The window still works; the Connect screen says why agents cannot connect.
    log(`the MCP endpoint did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
  const unavailable = (why: string) => ({
    info: () => {
      throw failed(why);
    },
    rotate: async () => {
      throw failed(why);
    },
  });
  const handlers = createHandlers({
    workbench,
    shell: "electron",
    log,
    // A sign-in opens in the system browser, never in a window of ours (RFC 8252).
    openExternal: (url) => shell.openExternal(url),
    connect: server?.connect ?? unavailable("the MCP endpoint is not running: another workbench serves this data directory (see the app's log)"),
  });
  serveRendererProtocol();
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  registerIpcHandlers(ipcMain, handlers, () => window, log);
  forwardEvents(workbench.bus, () => window);
  window = createWindow();
  app.on("activate", () => {
    if (!window) window = createWindow();
  });
}

let quitting = false;
app.on("before-quit", (event) => {
  if (quitting) return;
  quitting = true;
  event.preventDefault();
  void (async () => {
    await server?.close().catch(() => {});
    await workbench?.close().catch(() => {});
    app.exit(0);
  })();
});
app.on("window-all-closed", () => {
  // On macOS the app (and its MCP endpoint) stays up until the person quits it.
  if (process.platform !== "darwin") app.quit();
});
app.whenReady().then(start).catch((err: unknown) => {
  log(`could not start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  app.exit(1);
});
