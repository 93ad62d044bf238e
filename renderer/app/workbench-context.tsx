/**
 * The seam every component uses to reach the host: the contract's api, the
 * event stream, and small hooks for "load this channel, reload on these
 * events". Components never import a bridge directly.
 */
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import type { ChannelName, ReplyOf, RequestOf, WorkbenchApi } from "../../shared/contract.ts";
import type { WorkbenchEvent, WorkbenchEventType } from "../../shared/events.ts";
import { errorMessage, type Bridge, type StreamState } from "../bridge/index.ts";

interface WorkbenchContextValue {
  bridge: Bridge;
}

const WorkbenchContext = createContext<WorkbenchContextValue | null>(null);

export function WorkbenchProvider({ bridge, children }: { bridge: Bridge; children: ReactNode }) {
  return <WorkbenchContext.Provider value={{ bridge }}>{children}</WorkbenchContext.Provider>;
}

export function useBridge(): Bridge {
  const ctx = useContext(WorkbenchContext);
  if (!ctx) throw new Error("useWorkbench outside WorkbenchProvider");
  return ctx.bridge;
}

export function useWorkbench(): WorkbenchApi {
  return useBridge().api;
}

/** Calls `handler` for every host event (the latest handler, without resubscribing). */
export function useEvents(handler: (event: WorkbenchEvent) => void): void {
  const bridge = useBridge();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => bridge.onEvent((event) => ref.current(event)), [bridge]);
}

/** The event stream's state; a reconnect means events may have been missed. */
export function useStreamState(): StreamState {
  const bridge = useBridge();
  const [state, setState] = useState<StreamState>("open");
  useEffect(() => bridge.onStreamState(setState), [bridge]);
  return state;
}

export interface ChannelState<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads a channel and keeps it fresh: reloads when `request` changes (by its
 * JSON), when one of `refreshOn` events arrives, and after the event stream
 * reconnects (it may have missed some).
 */
export function useChannel<C extends ChannelName>(
  channel: C,
  request: RequestOf<C> | null,
  refreshOn: WorkbenchEventType[] = [],
  filter?: (event: WorkbenchEvent) => boolean,
): ChannelState<ReplyOf<C>> {
  const api = useWorkbench();
  const bridge = useBridge();
  const key = request === null ? null : JSON.stringify(request);
  const [state, setState] = useState<{ data?: ReplyOf<C>; error?: string; loading: boolean; key: string | null }>({ loading: request !== null, key });
  const generation = useRef(0);

  const load = useCallback(() => {
    if (key === null) return;
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    const call = api[channel] as (r: RequestOf<C>) => Promise<ReplyOf<C>>;
    call(JSON.parse(key) as RequestOf<C>).then(
      (data) => mine === generation.current && setState({ data, error: undefined, loading: false, key }),
      (err: unknown) => mine === generation.current && setState((s) => ({ data: s.key === key ? s.data : undefined, error: errorMessage(err), loading: false, key })),
    );
  }, [api, channel, key]);

  useEffect(load, [load]);

  const refresh = useRef({ refreshOn, filter, load });
  refresh.current = { refreshOn, filter, load };
  useEffect(() => {
    const offEvents = bridge.onEvent((event) => {
      const r = refresh.current;
      if (r.refreshOn.includes(event.type) && (!r.filter || r.filter(event))) r.load();
    });
    let wasConnecting = false;
    const offState = bridge.onStreamState((s) => {
      if (s === "connecting") wasConnecting = true;
      else if (wasConnecting) {
        wasConnecting = false;
        refresh.current.load();
      }
    });
    return () => {
      offEvents();
      offState();
    };
  }, [bridge]);

  const stale = state.key !== key;
  return { data: stale ? undefined : state.data, error: stale ? undefined : state.error, loading: stale ? key !== null : state.loading, reload: load };
}
