/**
 * The Electron bridge: the preload exposes one method per channel
 * (`methodName(channel)`, e.g. `apisList`) and `onEvent`. Never a generic
 * invoke: the method names come from the contract.
 */
import { CHANNELS, methodName, type WorkbenchApi } from "../../shared/contract.ts";
import type { WorkbenchEvent } from "../../shared/events.ts";
import { BridgeError, isChannelError } from "./errors.ts";
import type { Bridge } from "./types.ts";

export interface PreloadApi {
  onEvent(listener: (event: WorkbenchEvent) => void): () => void;
  [method: string]: unknown;
}

declare global {
  interface Window {
    workbench?: PreloadApi;
  }
}

export function electronBridge(preload: PreloadApi): Bridge {
  const entries = CHANNELS.map((channel) => {
    const method = preload[methodName(channel)];
    const call = async (request: unknown) => {
      if (typeof method !== "function") throw new BridgeError("failed", `The app does not provide ${channel}; update the app.`);
      let reply: unknown;
      try {
        reply = await (method as (r: unknown) => Promise<unknown>)(request ?? {});
      } catch (err) {
        // IPC rejections arrive as "Error invoking remote method '...': Error: <message>".
        const text = err instanceof Error ? err.message : String(err);
        throw new BridgeError("failed", text.replace(/^Error invoking remote method '[^']*': (Error: )?/, ""));
      }
      if (isChannelError(reply)) throw new BridgeError(reply.error.code, reply.error.message);
      return reply;
    };
    return [channel, call] as const;
  });
  const api = Object.fromEntries(entries) as unknown as WorkbenchApi;
  return {
    kind: "electron",
    api,
    sendOnExit: (channel, request) => {
      void (api[channel] as (r: unknown) => Promise<unknown>)(request).catch(() => {});
    },
    onEvent: (listener) => preload.onEvent(listener),
    onStreamState: () => () => {},
  };
}
