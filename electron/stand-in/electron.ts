/**
 * A stand-in for the `electron` module, for running the built app under plain
 * Node where Electron's binary cannot be had. It implements the part of
 * Electron's main-process API the app uses, with the behaviour the app relies
 * on, and records every call; the test drives it (a request to the app://
 * scheme, an IPC call from some frame, a click on a notification, quit)
 * through control.ts.
 *
 * What it does not do: render anything (no Chromium: no CSP enforcement, no
 * sandboxed renderer, no preload run), seal anything with an OS keychain
 * (safeStorage here is a reversible scramble), or show real windows, trays or
 * notifications. Those need the real binary: e2e/electron-app.e2e.ts.
 */
import { EventEmitter } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { installControl } from "./control.ts";

export interface Recorded {
  api: string;
  args: unknown[];
}

/** Everything the app asked for, in order, made JSON-safe. */
export const calls: Recorded[] = [];

export function record(api: string, ...args: unknown[]): void {
  calls.push({ api, args: args.map(jsonSafe) });
}

function jsonSafe(value: unknown, depth = 0): unknown {
  if (typeof value === "function") return "[function]";
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (value === null || typeof value !== "object") return value;
  if (depth > 4) return "[…]";
  if (Array.isArray(value)) return value.map((v) => jsonSafe(v, depth + 1));
  if (value instanceof MenuStandIn) return { menu: value.items.map((i) => i.label ?? i.role ?? i.type) };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v, depth + 1)]));
}

/** The app's package.json: Electron reads the app's name and version from it. */
function appPackage(): { name?: string; productName?: string; version?: string } {
  let dir = dirname(process.argv[1] ?? ".");
  for (let i = 0; i < 5; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { main?: string; name?: string; productName?: string; version?: string };
      if (pkg.main) return pkg;
    }
    dir = dirname(dir);
  }
  return {};
}

class AppStandIn extends EventEmitter {
  readonly paths = new Map<string, string>([["userData", join(process.env.HOME ?? "/tmp", ".config", "Electron")]]);
  readonly pkg = appPackage();
  isPackaged = false;
  badgeCount = 0;
  #ready = false;
  #quitting = false;
  readonly #whenReady = new Promise<void>((resolve) =>
    setImmediate(() => {
      this.#ready = true;
      this.emit("ready");
      resolve();
    }),
  );
  whenReady(): Promise<void> {
    return this.#whenReady;
  }
  isReady(): boolean {
    return this.#ready;
  }
  getName(): string {
    return this.pkg.productName ?? this.pkg.name ?? "Electron";
  }
  getVersion(): string {
    return this.pkg.version ?? "0.0.0";
  }
  getPath(name: string): string {
    const path = this.paths.get(name) ?? (name === "sessionData" ? this.paths.get("userData") : undefined);
    if (!path) throw new Error(`stand-in: app.getPath("${name}") is not known`);
    return path;
  }
  setPath(name: string, path: string): void {
    record("app.setPath", name, path);
    this.paths.set(name, path);
  }
  requestSingleInstanceLock(additionalData?: unknown): boolean {
    record("app.requestSingleInstanceLock", additionalData);
    return process.env.STAND_IN_SECOND_INSTANCE !== "1";
  }
  setBadgeCount(count: number): boolean {
    record("app.setBadgeCount", count);
    this.badgeCount = count;
    return true;
  }
  setAsDefaultProtocolClient(scheme: string): boolean {
    record("app.setAsDefaultProtocolClient", scheme);
    return true;
  }
  setAppUserModelId(id: string): void {
    record("app.setAppUserModelId", id);
  }
  focus(): void {
    record("app.focus");
  }
  /** Like Electron: `before-quit` may be prevented; otherwise windows close and the process ends. */
  quit(): void {
    record("app.quit");
    if (this.#quitting) return;
    let prevented = false;
    this.emit("before-quit", { preventDefault: () => (prevented = true) });
    if (prevented) return;
    this.#quitting = true;
    this.emit("will-quit", { preventDefault: () => {} });
    this.exit(0);
  }
  exit(code = 0): void {
    record("app.exit", code);
    // Let the last control messages reach the test before the process goes.
    setTimeout(() => process.exit(code), 50);
  }
}

export const app = new AppStandIn();

export class WebContentsStandIn extends EventEmitter {
  static #next = 1;
  readonly id = WebContentsStandIn.#next++;
  readonly mainFrame = { url: "", name: "main" };
  readonly sent: { channel: string; payload: unknown }[] = [];
  windowOpenHandler: ((details: { url: string }) => { action: "allow" | "deny" }) | undefined;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: "allow" | "deny" }): void {
    record("webContents.setWindowOpenHandler");
    this.windowOpenHandler = handler;
  }
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  getURL(): string {
    return this.mainFrame.url;
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly windows: BrowserWindow[] = [];
  static getAllWindows(): BrowserWindow[] {
    return BrowserWindow.windows.filter((w) => !w.destroyed);
  }
  readonly webContents = new WebContentsStandIn();
  readonly options: Record<string, unknown>;
  bounds: { x: number; y: number; width: number; height: number };
  visible = false;
  focused = false;
  minimized = false;
  maximized = false;
  destroyed = false;
  constructor(options: Record<string, unknown> = {}) {
    super();
    record("new BrowserWindow", options);
    this.options = options;
    this.bounds = { x: Number(options.x ?? 100), y: Number(options.y ?? 100), width: Number(options.width ?? 800), height: Number(options.height ?? 600) };
    BrowserWindow.windows.push(this);
  }
  async loadURL(url: string): Promise<void> {
    record("BrowserWindow.loadURL", url);
    this.webContents.mainFrame.url = url;
    setImmediate(() => this.emit("ready-to-show"));
  }
  show(): void {
    this.visible = true;
  }
  focus(): void {
    this.focused = true;
  }
  isFocused(): boolean {
    return this.focused;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  maximize(): void {
    this.maximized = true;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  getNormalBounds(): { x: number; y: number; width: number; height: number } {
    return { ...this.bounds };
  }
  setBounds(bounds: { x: number; y: number; width: number; height: number }): void {
    this.bounds = bounds;
    this.emit("resize");
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  close(): void {
    this.emit("close", { preventDefault: () => {} });
    this.destroyed = true;
    this.emit("closed");
    if (BrowserWindow.getAllWindows().length === 0) app.emit("window-all-closed");
  }
}

type ProtocolHandler = (request: Request) => Response | Promise<Response>;
export const protocol = {
  handlers: new Map<string, ProtocolHandler>(),
  registerSchemesAsPrivileged(schemes: unknown[]): void {
    record("protocol.registerSchemesAsPrivileged", schemes);
  },
  handle(scheme: string, handler: ProtocolHandler): void {
    record("protocol.handle", scheme);
    protocol.handlers.set(scheme, handler);
  },
};

type InvokeHandler = (event: unknown, payload: unknown) => unknown;
export const ipcMain = {
  handlers: new Map<string, InvokeHandler>(),
  listeners: new Map<string, unknown>(),
  handle(channel: string, handler: InvokeHandler): void {
    if (ipcMain.handlers.has(channel)) throw new Error(`stand-in: a second handler for ${channel}`);
    ipcMain.handlers.set(channel, handler);
  },
  removeHandler(channel: string): void {
    ipcMain.handlers.delete(channel);
  },
  on(channel: string, listener: unknown): void {
    record("ipcMain.on", channel);
    ipcMain.listeners.set(channel, listener);
  },
};

type PermissionHandler = (contents: unknown, permission: string, callback: (granted: boolean) => void, details?: unknown) => void;
export const session = {
  defaultSession: {
    permissionRequest: undefined as PermissionHandler | undefined,
    permissionCheck: undefined as ((contents: unknown, permission: string) => boolean) | undefined,
    setPermissionRequestHandler(handler: PermissionHandler): void {
      record("session.setPermissionRequestHandler");
      session.defaultSession.permissionRequest = handler;
    },
    setPermissionCheckHandler(handler: (contents: unknown, permission: string) => boolean): void {
      record("session.setPermissionCheckHandler");
      session.defaultSession.permissionCheck = handler;
    },
  },
};

const SCRAMBLE = 0x5a;
export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => process.env.STAND_IN_KEYRING ?? "gnome_libsecret",
  encryptString(plain: string): Buffer {
    record("safeStorage.encryptString");
    return Buffer.concat([Buffer.from("standin:"), Buffer.from(plain, "utf8").map((b) => b ^ SCRAMBLE)]);
  },
  decryptString(sealed: Buffer): string {
    record("safeStorage.decryptString");
    if (!sealed.subarray(0, 8).equals(Buffer.from("standin:"))) throw new Error("stand-in: not sealed by the stand-in");
    return Buffer.from(sealed.subarray(8).map((b) => b ^ SCRAMBLE)).toString("utf8");
  },
};

export const dialog = {
  showMessageBoxSync(...args: unknown[]): number {
    record("dialog.showMessageBoxSync", ...args);
    return Number(process.env.STAND_IN_DIALOG_ANSWER ?? 0);
  },
  showErrorBox(title: string, content: string): void {
    record("dialog.showErrorBox", title, content);
  },
};

export const shell = {
  async openExternal(url: string): Promise<void> {
    record("shell.openExternal", url);
  },
  async openPath(path: string): Promise<string> {
    record("shell.openPath", path);
    return "";
  },
};

export class Notification extends EventEmitter {
  static readonly shown: Notification[] = [];
  static isSupported(): boolean {
    return true;
  }
  readonly options: { title?: string; body?: string };
  constructor(options: { title?: string; body?: string }) {
    super();
    this.options = options;
  }
  show(): void {
    record("Notification.show", { title: this.options.title, body: this.options.body });
    Notification.shown.push(this);
  }
}

export interface MenuItemLike {
  label?: string;
  role?: string;
  type?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
  submenu?: MenuItemLike[];
}
export class MenuStandIn {
  readonly items: MenuItemLike[];
  constructor(items: MenuItemLike[]) {
    this.items = items;
  }
}
export const Menu = {
  application: undefined as MenuStandIn | undefined,
  buildFromTemplate: (template: MenuItemLike[]) => new MenuStandIn(template),
  setApplicationMenu(menu: MenuStandIn | null): void {
    record("Menu.setApplicationMenu", menu);
    Menu.application = menu ?? undefined;
  },
};

export class Tray extends EventEmitter {
  static current: Tray | undefined;
  menu: MenuStandIn | undefined;
  tooltip = "";
  constructor(image: unknown) {
    super();
    record("new Tray", image);
    Tray.current = this;
  }
  setContextMenu(menu: MenuStandIn): void {
    this.menu = menu;
  }
  setToolTip(tooltip: string): void {
    this.tooltip = tooltip;
  }
  destroy(): void {
    record("Tray.destroy");
  }
}

export const nativeImage = {
  createFromPath(path: string) {
    const image = { path, exists: existsSync(path), resize: () => image };
    record("nativeImage.createFromPath", path, image.exists);
    return image;
  },
};

export const nativeTheme = {
  _source: "system",
  get themeSource(): string {
    return nativeTheme._source;
  },
  set themeSource(value: string) {
    record("nativeTheme.themeSource", value);
    nativeTheme._source = value;
  },
};

export const screen = {
  getAllDisplays: () => [{ id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
};

const electron = { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, nativeTheme, Notification, protocol, safeStorage, screen, session, shell, Tray };
export default electron;

installControl();
// For runs the test cannot talk to (a second instance that quits at once): the record, written as the process ends.
const recordFile = process.env.STAND_IN_RECORD;
if (recordFile) process.on("exit", () => writeFileSync(recordFile, JSON.stringify(calls)));
