/** A run's detail (`runs.get`), kept fresh while it changes: events for this run reload it, at most every 150 ms. */
import { useEffect, useRef } from "react";
import type { WorkbenchEvent } from "../../shared/events.ts";
import { useChannel, useEvents } from "../app/workbench-context.tsx";

export function eventRunId(event: WorkbenchEvent): string | undefined {
  switch (event.type) {
    case "run.updated":
      return event.run.id;
    case "run.finished":
    case "decision.made":
      return event.runId;
    case "decision.requested":
      return event.decision.runId;
    default:
      return undefined;
  }
}

export function useRunDetail(runId: string | undefined) {
  const state = useChannel("runs.get", runId ? { id: runId } : null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const reload = useRef(state.reload);
  reload.current = state.reload;
  useEvents((event) => {
    if (!runId || eventRunId(event) !== runId || timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      reload.current();
    }, 150);
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  return state;
}
