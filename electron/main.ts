/**
 * The Electron main process: one window onto the data directory's workbench.
 * Electron is only wired here; what the app decides lives in electron/shell/
 * (plain Node, tested without Electron) and electron/host/.
 *
 * - One instance per data directory: userData is the data directory, so
 *   Electron's single-instance lock is per data directory; a second launch
 *   (or a codemode-workbench:// link) focuses the first and shows its target.
 *   A `workbench serve` already serving the directory is named, not joined.
 * - The vault is sealed with safeStorage (the OS keychain), refusing the
 *   plaintext `basic_text` backend unless the person accepts it.
 * - The loopback server runs for /mcp and the CLI; the window loads the
 *   renderer from `app://workbench` with the CSP, and reaches the host over
 *   IPC (ipc.ts). Context isolation, sandbox, no Node integration; navigation,
 *   window.open, webviews and permissions denied.
 * - Waiting decisions raise a notification, the badge and the tray
 *   (shell/attention.ts); window, theme, notification choice and open tabs
 *   stick (shell/settings.ts, electron-store).
 *
 * Built to dist/electron/main.js by scripts/electron-build.ts; files are found
 * through host/common/assets.ts.
 */
import { join } from "node:path";
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, nativeTheme, Notification, protocol, safeStorage, screen, session, shell, Tray, type MenuItemConstructorOptions } from "electron";
import { uiSession, type OpenTarget } from "../shared/contract.ts";
import { assetPath, preloadPath, rendererDir, workbenchVersion } from "./host/common/assets.ts";
import { resolveDataDir } from "./host/data-dir.ts";
import { failed } from "./host/handlers/failure.ts";
import { createHandlers } from "./host/handlers/index.ts";
import type { SecretCipher } from "./host/vault/cipher.ts";
import { Workbench } from "./host/workbench.ts";
import { APP_ORIGIN, forwardEvents, registerIpcHandlers } from "./ipc.ts";
import { startWorkbenchServer, type WorkbenchServer } from "./serve.ts";
import { liveLock, lockAnswers } from "./serve/lockfile.ts";
import { followApprovals, type TrayEntry } from "./shell/attention.ts";
import { applicationMenu, trayMenu, trayTooltip, type MenuItemSpec } from "./shell/menus.ts";
import { LINK_SCHEME, openLinkInArgv, parseOpenLink } from "./shell/open-target.ts";
import { APP_SCHEME, rendererResponse } from "./shell/renderer-protocol.ts";
import { decisionNotifications, openSettings, withDecisionNotifications } from "./shell/settings.ts";
import { debounced, DEFAULT_SIZE, usableBounds } from "./shell/window-state.ts";

const INDEX_URL = `${APP_ORIGIN}/index.html`;
const debug = !!process.env.WORKBENCH_DEBUG;
const log = (message: string) => console.error(`workbench: ${message}`);

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } }]);

const dataDir = resolveDataDir({ flag: dataDirFromArgs(process.argv), env: process.env });
// Electron's single-instance lock and electron-store both live in userData: both are then per data directory.
app.setPath("userData", dataDir);
app.setPath("sessionData", join(dataDir, "app-cache"));

let window: BrowserWindow | undefined;
let workbench: Workbench | undefined;
let server: WorkbenchServer | undefined;
let settings: ReturnType<typeof openSettings>["store"] | undefined;
let tray: Tray | undefined;
/** Saves the window's bounds now (before quitting, when no close event comes). */
let flushWindowState = () => {};
/** A link the app was launched with (or got before its window existed). */
let launchTarget = openLinkInArgv(process.argv);

function dataDirFromArgs(argv: string[]): string | undefined {
  const index = argv.indexOf("--data-dir");
  if (index >= 0) return argv[index + 1];
  return argv.find((a) => a.startsWith("--data-dir="))?.slice("--data-dir=".length);
}

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

/** Brings the window forward and has it show `target` (the renderer hears app.open on the event stream). */
function show(target?: OpenTarget): void {
  if (!window || window.isDestroyed()) {
    if (target) launchTarget = target;
    if (workbench) window = createWindow();
    return;
  }
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
  if (target) workbench?.bus.publish({ type: "app.open", target });
}

function createWindow(): BrowserWindow {
  const saved = settings?.get("window");
  const bounds = usableBounds(saved?.bounds, screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow({
    ...(bounds ?? DEFAULT_SIZE),
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: "Codemode Workbench",
    icon: assetPath("appIcon"),
    webPreferences: {
      preload: preloadPath(),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      spellcheck: false,
      // A middle click on a link would ask for a new window (denied anyway): do not even ask.
      disableBlinkFeatures: "Auxclick",
    },
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
  win.once("ready-to-show", () => {
    if (saved?.maximized) win.maximize();
    win.show();
  });
  const saveBounds = debounced(() => {
    if (!win.isDestroyed()) settings?.set("window", { bounds: win.getNormalBounds(), maximized: win.isMaximized() });
  });
  for (const change of ["resize", "move", "maximize", "unmaximize"] as const) win.on(change as "resize", () => saveBounds.schedule());
  flushWindowState = () => saveBounds.flush();
  win.on("close", () => saveBounds.flush());
  win.on("closed", () => {
    if (window === win) window = undefined;
  });
  // A launch link rides in the fragment: the renderer shows it once it has loaded.
  const target = launchTarget;
  launchTarget = undefined;
  void win.loadURL(target ? `${INDEX_URL}#open=${encodeURIComponent(target.kind === "run" ? `run/${target.runId}` : `inbox/${target.runId ?? ""}`)}` : INDEX_URL);
  return win;
}

function applyMenus(entries: TrayEntry[] = []): void {
  if (!settings) return;
  const store = settings;
  const menu = applicationMenu({
    platform: process.platform,
    debug,
    theme: store.get("theme"),
    notifications: decisionNotifications(store.store),
    setTheme: (theme) => {
      store.set("theme", theme);
      nativeTheme.themeSource = theme;
      applyMenus(entries);
    },
    setNotifications: (choice) => {
      store.set("notifications", withDecisionNotifications(store.get("notifications"), choice));
      applyMenus(entries);
    },
    showInbox: () => show({ kind: "inbox" }),
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(menu as MenuItemConstructorOptions[]));
  if (!tray) return;
  const items: MenuItemSpec[] = trayMenu(entries, { open: (target) => show(target), showWindow: () => show(), quit: () => app.quit() });
  tray.setContextMenu(Menu.buildFromTemplate(items as MenuItemConstructorOptions[]));
  tray.setToolTip(trayTooltip(entries.length));
}

/** Notifications are kept until clicked or closed: one that is garbage-collected never reports its click. */
const shown = new Set<Notification>();

function startAttention(bench: Workbench, store: NonNullable<typeof settings>): void {
  const icon = nativeImage.createFromPath(assetPath("appIcon"));
  try {
    tray = new Tray(icon.resize({ width: process.platform === "darwin" ? 18 : 22 }));
    tray.on("click", () => show());
  } catch (err) {
    // Some Linux desktops have no tray; the badge and notifications still work.
    log(`no tray: ${err instanceof Error ? err.message : String(err)}`);
  }
  followApprovals({
    subscribe: (listener) => bench.bus.subscribe(listener),
    pending: () => bench.store.listPendingDecisions(),
    windowFocused: () => !!window && !window.isDestroyed() && window.isVisible() && !window.isMinimized() && window.isFocused(),
    notificationChoice: () => decisionNotifications(store.store),
    notify: ({ title, body, onClick }) => {
      if (!Notification.isSupported()) return;
      const notification = new Notification({ title, body, icon });
      shown.add(notification);
      notification.on("click", () => {
        shown.delete(notification);
        onClick();
      });
      notification.on("close", () => shown.delete(notification));
      notification.show();
    },
    setBadge: (count) => void app.setBadgeCount(count),
    setTray: (entries) => applyMenus(entries),
    open: (target) => show(target),
  });
}

async function start(): Promise<void> {
  // Another `serve` (or an app started before the lock existed) owns this data directory: name it, and do not open its files beside it.
  const holder = liveLock(dataDir);
  if (holder && holder.pid !== process.pid && holder.kind !== "mcp" && (await lockAnswers(holder))) {
    const choice = dialog.showMessageBoxSync({
      type: "info",
      title: "Already running",
      message: `Codemode Workbench is already running for ${dataDir}.`,
      detail: `${holder.kind === "serve" ? "workbench serve" : "Another app"} (pid ${holder.pid}) serves it at ${holder.url}. Open it there, or stop it and start the app again.`,
      buttons: ["Quit", "Open in the Browser"],
      defaultId: 1,
      cancelId: 0,
    });
    if (choice === 1) await shell.openExternal(`${holder.url}/#token=${holder.sessionToken}`);
    return app.quit();
  }

  const opened = openSettings(app.getPath("userData"), app.getVersion());
  if (opened.notice) log(opened.notice);
  settings = opened.store;
  nativeTheme.themeSource = settings.get("theme");

  const cipher = safeStorageCipher();
  const acceptPlaintext = cipher.plaintextFallback ? acceptsPlaintextVault() : false;
  if (cipher.plaintextFallback && !acceptPlaintext) return app.quit();
  const result = Workbench.open({ dataDir, env: process.env, cipher, acceptPlaintextVault: acceptPlaintext, log: debug ? log : () => {} });
  if (!result.ok) {
    dialog.showErrorBox("Codemode Workbench cannot start", result.message);
    return app.quit();
  }
  const bench = result.workbench;
  workbench = bench;
  for (const notice of result.notices) log(notice);

  try {
    server = await startWorkbenchServer({ workbench: bench, kind: "app", shell: "electron", rendererDir: false, log, version: workbenchVersion() });
    log(`MCP endpoint at ${server.mcpUrl}`);
  } catch (err) {
    // The window still works; the Connect screen says why agents cannot connect.
    log(`the MCP endpoint did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
  const store = settings;
  const handlers = createHandlers({
    workbench: bench,
    shell: "electron",
    log,
    // A sign-in opens in the system browser, never in a window of ours (RFC 8252).
    openExternal: (url) => shell.openExternal(url),
    connect: server?.connect ?? unavailableConnect("the MCP endpoint is not running (see the app's log)"),
    uiSession: {
      get: () => {
        const parsed = uiSession.safeParse(store.get("session"));
        return parsed.success ? parsed.data : null;
      },
      save: (next) => store.set("session", next),
    },
  });
  protocol.handle(APP_SCHEME, (request) => rendererResponse(request.url, rendererDir()));
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  registerIpcHandlers(ipcMain, handlers, () => window, log);
  forwardEvents(bench.bus, () => window);
  bench.bus.subscribe((event) => {
    if (event.type === "app.open") show();
  });
  applyMenus();
  startAttention(bench, store);
  window = createWindow();
  app.on("activate", () => show());
}

function unavailableConnect(why: string) {
  return {
    info: () => {
      throw failed(why);
    },
    rotate: async () => {
      throw failed(why);
    },
  };
}

if (!app.requestSingleInstanceLock({ dataDir })) {
  // The first instance for this data directory gets our argv (and any link in it) as `second-instance`.
  app.quit();
} else {
  app.on("second-instance", (_event, argv) => show(openLinkInArgv(argv)));
  app.on("open-url", (event, url) => {
    event.preventDefault();
    const target = parseOpenLink(url);
    if (target) show(target);
  });
  if (app.isPackaged) app.setAsDefaultProtocolClient(LINK_SCHEME);
  if (process.platform === "win32") app.setAppUserModelId("dev.codemode.workbench");

  let quitting = false;
  app.on("before-quit", (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    void (async () => {
      flushWindowState();
      tray?.destroy();
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
}
