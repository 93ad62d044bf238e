/**
 * The names of the Electron IPC channels: one per contract channel, plus the
 * event stream. Here (not in electron/ipc.ts) because the preload needs them
 * too and must not import host code.
 */
import type { ChannelName } from "./contract.ts";

const IPC_PREFIX = "workbench:";

export const EVENT_CHANNEL = `${IPC_PREFIX}event`;

export function ipcChannel(channel: ChannelName): string {
  return `${IPC_PREFIX}${channel}`;
}
