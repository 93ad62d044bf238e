/** Every code run, by a person or an agent: filter by status, source, API and text; open one to inspect, edit, replay or export it. */
import { useEffect, useRef, useState } from "react";
import type { RunSummary } from "../../shared/runs.ts";
import type { RunStatus } from "../../shared/envelope.ts";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { useChannel, useEvents, useWorkbench } from "../app/workbench-context.tsx";
import { formatRelative, runStatusTone, sourceLabel } from "../common/format.ts";
import "./HistoryView.css";

const STATUSES: RunStatus[] = ["running", "pending", "completed", "failed", "cancelled", "interrupted"];
const PAGE = 100;

export function HistoryView({ visible }: { visible: boolean }) {
  const api = useWorkbench();
  const actions = useActions();
  const apis = useChannel("apis.list", {}, ["apis.changed"]);
  const [status, setStatus] = useState<Set<RunStatus>>(new Set());
  const [source, setSource] = useState<"" | "ui" | "mcp" | "cli">("");
  const [apiName, setApiName] = useState("");
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const [runs, setRuns] = useState<RunSummary[] | undefined>();
  const [more, setMore] = useState<RunSummary[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<string>();
  const generation = useRef(0);
  const stale = useRef(false);

  useEffect(() => {
    const t = setTimeout(() => setQuery(text.trim()), 250);
    return () => clearTimeout(t);
  }, [text]);

  const filter = {
    ...(status.size ? { status: [...status] } : {}),
    ...(source ? { source } : {}),
    ...(apiName ? { api: apiName } : {}),
    ...(query ? { text: query.slice(0, 200) } : {}),
  };
  const filterKey = JSON.stringify(filter);

  const load = () => {
    const mine = ++generation.current;
    api["runs.list"]({ ...filter, limit: PAGE }).then(
      (list) => {
        if (mine !== generation.current) return;
        setRuns(list);
        setMore([]);
        setHasMore(list.length === PAGE);
        setError(undefined);
      },
      (err: unknown) => mine === generation.current && setError(errorMessage(err)),
    );
  };
  useEffect(load, [filterKey]);

  // New and changed runs show up live while the view is open; when hidden, refresh on return.
  const throttle = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEvents((event) => {
    if (event.type !== "run.updated" && event.type !== "run.finished") return;
    if (!visible) {
      stale.current = true;
      return;
    }
    clearTimeout(throttle.current);
    throttle.current = setTimeout(load, 300);
  });
  useEffect(() => {
    if (visible && stale.current) {
      stale.current = false;
      load();
    }
  });

  const loadMore = () => {
    const all = [...(runs ?? []), ...more];
    const last = all[all.length - 1];
    if (!last) return;
    api["runs.list"]({ ...filter, limit: PAGE, before: last.id }).then(
      (list) => {
        setMore((m) => [...m, ...list]);
        setHasMore(list.length === PAGE);
      },
      (err: unknown) => setError(errorMessage(err)),
    );
  };

  const all = [...(runs ?? []), ...more];
  const filtering = filterKey !== "{}";

  return (
    <div className="view history scroll">
      <header className="view-head">
        <h1>Runs</h1>
        <span className="muted">{runs ? `${all.length}${hasMore ? "+" : ""} shown` : ""}</span>
      </header>
      <div className="history-filters">
        <input className="input history-search" type="search" placeholder="Search programs, logs, operations" aria-label="Search runs" value={text} onChange={(e) => setText(e.target.value)} />
        <div className="history-status" role="group" aria-label="Filter by status">
          {STATUSES.map((s) => (
            <button
              key={s}
              className={`chip ${status.has(s) ? "chip-on" : ""}`}
              aria-pressed={status.has(s)}
              onClick={() =>
                setStatus((old) => {
                  const next = new Set(old);
                  if (next.has(s)) next.delete(s);
                  else next.add(s);
                  return next;
                })
              }
            >
              {s}
            </button>
          ))}
        </div>
        <select className="select" aria-label="Filter by source" value={source} onChange={(e) => setSource(e.target.value as typeof source)}>
          <option value="">Anyone</option>
          <option value="ui">You (workbench)</option>
          <option value="mcp">Agents (MCP)</option>
          <option value="cli">Command line</option>
        </select>
        <select className="select" aria-label="Filter by API" value={apiName} onChange={(e) => setApiName(e.target.value)}>
          <option value="">Any API</option>
          {apis.data?.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      {error && (
        <div className="error-banner" role="alert">
          <span>
            <strong>Could not list runs.</strong> {error}
          </span>
          <button className="btn btn-small" onClick={load}>
            Retry
          </button>
        </div>
      )}
      {runs && all.length === 0 && (
        <div className="empty">
          {filtering ? (
            <p>No run matches these filters.</p>
          ) : (
            <>
              <h2>No runs yet</h2>
              <p>Every program run, by you or by an agent, is kept here with its calls, logs and result. Write one in a program tab and press Ctrl+Enter.</p>
            </>
          )}
        </div>
      )}
      {all.length > 0 && (
        <ul className="history-list" aria-label="Runs">
          {all.map((run) => (
            <li key={run.id}>
              <button className="history-row" onClick={() => actions.openRun(run.id)}>
                <span className={`pill pill-${runStatusTone(run.status)}`}>{run.status}</span>
                <span className="history-title">
                  <span className="history-program">{run.title || "(empty program)"}</span>
                  <span className="muted history-sub">
                    {sourceLabel(run.source)} · {run.tool} · {run.policy === "all" ? "can write" : "read-only"}
                    {run.failureReason ? ` · ${run.failureReason}` : ""}
                    {run.parentId ? ` · from ${run.parentId}` : ""}
                  </span>
                </span>
                <span className="history-apis">
                  {run.apis.map((a) => (
                    <span key={a} className="pill">
                      {a}
                    </span>
                  ))}
                </span>
                <span className="muted history-calls">
                  {run.callCount} call{run.callCount === 1 ? "" : "s"}
                </span>
                <span className="muted history-time" title={new Date(run.createdAt).toLocaleString()}>
                  {formatRelative(run.createdAt)}
                </span>
                <code className="muted history-id">{run.id}</code>
              </button>
            </li>
          ))}
        </ul>
      )}
      {hasMore && (
        <button className="btn history-more" onClick={loadMore}>
          Load older runs
        </button>
      )}
    </div>
  );
}
