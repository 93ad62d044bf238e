/**
 * The HTTP bridge of `workbench serve`: each channel is `POST /api/<channel>`
 * with a JSON body; failures are HTTP 4xx/5xx with a ChannelError body. Events
 * arrive as server-sent events from `GET /api/events`. The session is a
 * same-origin HttpOnly cookie (see session.ts), so no token lives in JS.
 */
import { CHANNELS, type ChannelName, type WorkbenchApi } from "../../shared/contract.ts";
import type { WorkbenchEvent } from "../../shared/events.ts";
import { BridgeError, isChannelError } from "./errors.ts";
import type { Bridge, EventListener, StreamState } from "./types.ts";

type Unauthorized = () => void;

export function httpBridge(onUnauthorized: Unauthorized, base = ""): Bridge {
  const call = async (channel: ChannelName, request: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${base}/api/${channel}`, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request ?? {}),
      });
    } catch {
      throw new BridgeError("network", "The workbench host is not answering. Is `workbench serve` still running?");
    }
    if (res.status === 401) {
      onUnauthorized();
      throw new BridgeError("unauthorized", "No session: open the URL printed by `workbench serve`.", 401);
    }
    const text = await res.text();
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      if (res.ok) throw new BridgeError("failed", `The host sent a reply that is not JSON (${channel}).`, res.status);
    }
    if (!res.ok) {
      if (isChannelError(body)) throw new BridgeError(body.error.code, body.error.message, res.status);
      throw new BridgeError("failed", `${channel} failed with HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`, res.status);
    }
    return body;
  };

  const api = Object.fromEntries(CHANNELS.map((c) => [c, (request: unknown) => call(c, request)])) as unknown as WorkbenchApi;

  const listeners = new Set<EventListener>();
  const stateListeners = new Set<(state: StreamState) => void>();
  let source: EventSource | undefined;
  const ensureStream = () => {
    if (source || typeof EventSource === "undefined") return;
    source = new EventSource(`${base}/api/events`, { withCredentials: true });
    source.onopen = () => stateListeners.forEach((l) => l("open"));
    source.onerror = () => stateListeners.forEach((l) => l("connecting"));
    source.onmessage = (message) => {
      let event: WorkbenchEvent;
      try {
        event = JSON.parse(message.data) as WorkbenchEvent;
      } catch {
        return;
      }
      for (const listener of [...listeners]) listener(event);
    };
  };

  return {
    kind: "http",
    api,
    onEvent(listener) {
      listeners.add(listener);
      ensureStream();
      return () => listeners.delete(listener);
    },
    sendOnExit(channel, request) {
      // keepalive lets the request outlive the page; the cookie and Origin go with it.
      void fetch(`${base}/api/${channel}`, {
        method: "POST",
        credentials: "same-origin",
        keepalive: true,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
      }).catch(() => {});
    },
    onStreamState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
  };
}
