/** Picks how to reach the host: the Electron preload when present, else the HTTP bridge of `workbench serve`. */
import { electronBridge } from "./electron.ts";
import { httpBridge } from "./http.ts";
import type { Bridge } from "./types.ts";

export function connectBridge(onUnauthorized: () => void): Bridge {
  if (typeof window !== "undefined" && window.workbench) return electronBridge(window.workbench);
  return httpBridge(onUnauthorized);
}

export type { Bridge, StreamState } from "./types.ts";
export { BridgeError, errorMessage } from "./errors.ts";
export { exchangeSessionToken } from "./session.ts";
