/**
 * The preload of the workbench window (sandboxed, context-isolated): exposes
 * `window.workbench` with one method per channel of the contract, named by
 * `methodName` (`apis.list` → `apisList`), plus `onEvent`. There is no generic
 * `invoke(channel)`: the page can reach exactly the contract's channels, and
 * the main process checks the sender and parses every payload again.
 *
 * Bundled to CommonJS by scripts/start.js (a sandboxed preload cannot load
 * ES modules or our TypeScript).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import { CHANNELS, methodName, type ChannelName } from "../shared/contract.ts";
import type { WorkbenchEvent } from "../shared/events.ts";
import { EVENT_CHANNEL, ipcChannel } from "../shared/ipc-channels.ts";


function channelMethod(channel: ChannelName): (request: unknown) => Promise<unknown> {
  const name = ipcChannel(channel);
  return (request) => ipcRenderer.invoke(name, request ?? {});
}

const api: Record<string, unknown> = Object.fromEntries(CHANNELS.map((channel) => [methodName(channel), channelMethod(channel)]));
api.onEvent = (listener: (event: WorkbenchEvent) => void): (() => void) => {
  const handler = (_event: IpcRendererEvent, payload: WorkbenchEvent) => listener(payload);
  ipcRenderer.on(EVENT_CHANNEL, handler);
  return () => void ipcRenderer.off(EVENT_CHANNEL, handler);
};

contextBridge.exposeInMainWorld("workbench", Object.freeze(api));
