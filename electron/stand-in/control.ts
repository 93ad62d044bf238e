/**
 * The test's handle on the stand-in: over the IPC channel of the child
 * process, the test sends `{id, op, ...}` and gets `{id, ok, value | error}`.
 * Each op does what Chromium or the OS would do to the app (request a URL of
 * the app:// scheme, navigate, open a window, ask for a permission, invoke an
 * IPC channel from a frame, click a notification or a tray entry, launch a
 * second instance, quit) and answers with what the app did.
 */
import { app, BrowserWindow, calls, ipcMain, Menu, Notification, protocol, session, Tray, type MenuItemLike } from "./electron.ts";

export type ControlOp =
  | { op: "state" }
  | { op: "protocol"; url: string }
  | { op: "navigate"; event: "will-navigate" | "will-redirect"; url: string }
  | { op: "window-open"; url: string }
  | { op: "attach-webview" }
  | { op: "permission"; permission: string }
  | { op: "invoke"; channel: string; payload: unknown; from: "window" | "iframe" | "other-page" | "other-contents" }
  | { op: "focus"; focused: boolean }
  | { op: "click-notification"; index: number }
  | { op: "click-tray"; label: string }
  | { op: "click-menu"; path: string[] }
  | { op: "second-instance"; argv: string[] }
  | { op: "quit" };

function mainWindow(): BrowserWindow {
  const win = BrowserWindow.getAllWindows()[0];
  if (!win) throw new Error("the app has no window");
  return win;
}

function labels(items: MenuItemLike[] | undefined): unknown[] {
  return (items ?? []).map((item) => (item.submenu ? { [item.label ?? item.role ?? "?"]: labels(item.submenu) } : (item.label ?? item.role ?? item.type)));
}

async function perform(message: ControlOp): Promise<unknown> {
  switch (message.op) {
    case "state": {
      const win = BrowserWindow.getAllWindows()[0];
      return {
        ready: app.isReady(),
        calls,
        ipcChannels: [...ipcMain.handlers.keys()],
        ipcListeners: [...ipcMain.listeners.keys()],
        schemes: [...protocol.handlers.keys()],
        window: win && { options: win.options, url: win.webContents.getURL(), visible: win.visible, focused: win.focused, sent: win.webContents.sent },
        badge: app.badgeCount,
        notifications: Notification.shown.map((n) => n.options),
        tray: Tray.current && { tooltip: Tray.current.tooltip, items: labels(Tray.current.menu?.items) },
        appMenu: labels(Menu.application?.items),
      };
    }
    case "protocol": {
      const handler = protocol.handlers.get(new URL(message.url).protocol.slice(0, -1));
      if (!handler) throw new Error(`no handler for ${message.url}`);
      const response = await handler(new Request(message.url));
      const body = Buffer.from(await response.arrayBuffer());
      const type = response.headers.get("content-type") ?? "";
      return { status: response.status, headers: Object.fromEntries(response.headers), bytes: body.length, text: /text|json|javascript/.test(type) ? body.toString("utf8").slice(0, 4000) : undefined };
    }
    case "navigate": {
      let prevented = false;
      mainWindow().webContents.emit(message.event, { preventDefault: () => (prevented = true) }, message.url);
      return { prevented };
    }
    case "window-open": {
      const handler = mainWindow().webContents.windowOpenHandler;
      if (!handler) throw new Error("no window.open handler was set");
      return handler({ url: message.url });
    }
    case "attach-webview": {
      let prevented = false;
      mainWindow().webContents.emit("will-attach-webview", { preventDefault: () => (prevented = true) }, {}, {});
      return { prevented };
    }
    case "permission": {
      const handler = session.defaultSession.permissionRequest;
      if (!handler) throw new Error("no permission request handler was set");
      const granted = await new Promise<boolean>((resolve) => handler(mainWindow().webContents, message.permission, resolve, {}));
      return { granted, check: session.defaultSession.permissionCheck?.(mainWindow().webContents, message.permission) };
    }
    case "invoke": {
      const handler = ipcMain.handlers.get(message.channel);
      if (!handler) throw new Error(`no handler for ${message.channel}`);
      const win = mainWindow();
      const contents = win.webContents;
      const frames = {
        window: { sender: contents, senderFrame: contents.mainFrame },
        // A frame inside the window's page, at the app's own URL.
        iframe: { sender: contents, senderFrame: { url: contents.mainFrame.url, name: "iframe" } },
        // Another webContents (a window the app never made) at the app's URL.
        "other-contents": { sender: { id: contents.id + 1000 }, senderFrame: { url: contents.mainFrame.url } },
      };
      if (message.from === "other-page") {
        // The same frame object, showing another page: what a navigation that got through would look like.
        const url = contents.mainFrame.url;
        contents.mainFrame.url = "https://example.com/";
        try {
          return await handler({ sender: contents, senderFrame: contents.mainFrame }, message.payload);
        } finally {
          contents.mainFrame.url = url;
        }
      }
      return handler(frames[message.from], message.payload);
    }
    case "focus": {
      const win = mainWindow();
      win.focused = message.focused;
      win.emit(message.focused ? "focus" : "blur");
      return {};
    }
    case "click-notification": {
      const notification = Notification.shown[message.index];
      if (!notification) throw new Error(`no notification #${message.index}`);
      notification.emit("click");
      return {};
    }
    case "click-tray": {
      const item = Tray.current?.menu?.items.find((i) => i.label === message.label);
      if (!item?.click) throw new Error(`no tray entry "${message.label}"`);
      item.click();
      return {};
    }
    case "click-menu": {
      let items = Menu.application?.items;
      let item: MenuItemLike | undefined;
      for (const label of message.path) {
        item = items?.find((i) => i.label === label);
        items = item?.submenu;
      }
      if (!item?.click) throw new Error(`no menu item ${message.path.join(" > ")}`);
      item.click();
      return {};
    }
    case "second-instance": {
      app.emit("second-instance", { preventDefault: () => {} }, message.argv, process.cwd(), {});
      return {};
    }
    case "quit": {
      app.quit();
      return {};
    }
  }
}

export function installControl(): void {
  if (!process.send) return;
  process.on("message", (raw) => {
    const message = raw as ControlOp & { id: number };
    perform(message).then(
      (value) => process.send?.({ id: message.id, ok: true, value }),
      (err: unknown) => process.send?.({ id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The channel must not keep the app alive: the app decides when it exits.
  process.channel?.unref();
}
