import type { ChannelName, RequestOf, WorkbenchApi } from "../../shared/contract.ts";
import type { WorkbenchEvent } from "../../shared/events.ts";

export type EventListener = (event: WorkbenchEvent) => void;
/** "open": events flow; "connecting": (re)connecting; a reconnect may have missed events, so views refresh on it. */
export type StreamState = "connecting" | "open";

/** A way to reach the host: one async method per channel, and the event stream. */
export interface Bridge {
  kind: "electron" | "http";
  api: WorkbenchApi;
  onEvent(listener: EventListener): () => void;
  onStreamState(listener: (state: StreamState) => void): () => void;
  /** Fire-and-forget a call while the page is going away (unsaved edits on close). */
  sendOnExit<C extends ChannelName>(channel: C, request: RequestOf<C>): void;
}
