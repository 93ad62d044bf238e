/**
 * The Electron side of the contract: one `ipcMain.handle` per channel. Every
 * handler first checks that the request comes from the workbench window's own
 * top frame at the app's own origin (not an iframe, not a page it navigated
 * to), then hands the payload to the shared dispatcher, which parses it with
 * the channel's zod schema before any handler sees it. Failures come back as
 * ChannelError data, exactly as over the HTTP bridge.
 */
import type { BrowserWindow, IpcMain, IpcMainInvokeEvent } from "electron";
import { CHANNELS, type ChannelError } from "../shared/contract.ts";
import type { WorkbenchEvent } from "../shared/events.ts";
import { EVENT_CHANNEL, ipcChannel } from "../shared/ipc-channels.ts";
import type { EventBus } from "./host/events.ts";
import { dispatchChannel, type ChannelHandlers } from "./host/handlers/index.ts";
import { APP_HOST, APP_SCHEME } from "./shell/renderer-protocol.ts";

/** The origin the window's renderer is served from (a privileged custom scheme, see main.ts and shell/renderer-protocol.ts). */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** True when the request comes from the top frame of `window`, showing our own renderer. */
export function isTrustedSender(event: IpcMainInvokeEvent, window: BrowserWindow | undefined): boolean {
  const frame = event.senderFrame;
  if (!frame || !window || window.isDestroyed()) return false;
  if (event.sender.id !== window.webContents.id || frame !== window.webContents.mainFrame) return false;
  // WHATWG URL gives custom schemes an opaque origin, so compare the prefix; the slash stops app://workbench.evil.
  return frame.url.startsWith(`${APP_ORIGIN}/`);
}

export function registerIpcHandlers(ipcMain: IpcMain, handlers: ChannelHandlers, window: () => BrowserWindow | undefined, log: (message: string) => void): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(ipcChannel(channel), async (event, payload: unknown) => {
      if (!isTrustedSender(event, window())) {
        log(`ipc: refused ${channel} from a frame that is not the workbench window (${event.senderFrame?.url ?? "unknown"})`);
        const refused: ChannelError = { error: { code: "failed", message: "refused: this request did not come from the workbench window" } };
        return refused;
      }
      const out = await dispatchChannel(handlers, channel, payload, { actor: "ui" }, log);
      return out.ok ? out.reply : out.error;
    });
  }
  return () => {
    for (const channel of CHANNELS) ipcMain.removeHandler(ipcChannel(channel));
  };
}

/** Forwards the event bus to the window (the preload's onEvent). */
export function forwardEvents(bus: EventBus, window: () => BrowserWindow | undefined): () => void {
  return bus.subscribe((event: WorkbenchEvent) => {
    const target = window();
    if (target && !target.isDestroyed()) target.webContents.send(EVENT_CHANNEL, event);
  });
}
