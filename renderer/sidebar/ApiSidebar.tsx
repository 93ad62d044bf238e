/**
 * The left side: registered APIs and their operations, grouped by tag or by
 * path, filtered by text, method and tag. The list is virtualised, so a spec
 * with 1,200 operations scrolls like one with ten.
 */
import { useDeferredValue, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { ApiSummary, OperationRow } from "../../shared/contract.ts";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { usePersisted } from "../app/persisted.ts";
import { useEvents, useWorkbench } from "../app/workbench-context.tsx";
import { methodClass } from "../common/format.ts";
import { buildRows, groupKey, ROW_HEIGHT, type GroupMode, type SidebarRow } from "./rows.ts";
import "./ApiSidebar.css";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export function ApiSidebar({ apis, error, loading, filterRef }: { apis: ApiSummary[] | undefined; error: string | undefined; loading: boolean; filterRef: RefObject<HTMLInputElement | null> }) {
  const api = useWorkbench();
  const actions = useActions();
  const [operations, setOperations] = useState<Map<string, { rows?: OperationRow[]; error?: string }>>(new Map());
  const [text, setText] = useState("");
  const deferredText = useDeferredValue(text);
  const [methods, setMethods] = useState<Set<string>>(new Set());
  const [tag, setTag] = useState("");
  const [mode, setMode] = usePersisted<GroupMode>("groupMode", "tag");
  const [collapsedApis, setCollapsedApis] = useState<Set<string>>(new Set());
  const [toggledGroups, setToggledGroups] = useState<Set<string>>(new Set());
  const [focusIndex, setFocusIndex] = useState(0);
  const [reloadKey, setReloadKey] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);

  useEvents((event) => {
    if (event.type === "apis.changed") setReloadKey((k) => k + 1);
  });

  // Load every API's operation rows (small: id, method, path, summary, tags).
  const names = apis?.map((a) => a.name).join("\u0000") ?? "";
  useEffect(() => {
    if (!apis) return;
    let cancelled = false;
    for (const a of apis) {
      api["apis.operations"]({ api: a.name }).then(
        (rows) => !cancelled && setOperations((m) => new Map(m).set(a.name, { rows })),
        (err: unknown) => !cancelled && setOperations((m) => new Map(m).set(a.name, { error: errorMessage(err) })),
      );
    }
    return () => {
      cancelled = true;
    };
  }, [names, reloadKey, api]);

  const filter = useMemo(() => ({ text: deferredText, methods, tag }), [deferredText, methods, tag]);
  const rows = useMemo(
    () => buildRows({ apis: apis ?? [], operations, collapsedApis, toggledGroups, mode, filter }),
    [apis, operations, collapsedApis, toggledGroups, mode, filter],
  );
  const tags = useMemo(() => [...new Set((apis ?? []).flatMap((a) => [...a.tags.map((t) => t.name), ...(operations.get(a.name)?.rows?.flatMap((o) => o.tags) ?? [])]))].sort(), [apis, operations]);
  const totalOps = (apis ?? []).reduce((n, a) => n + a.operationCount, 0);
  const shownOps = rows.filter((r) => r.kind === "op").length;

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => ROW_HEIGHT[rows[i]!.kind],
    overscan: 12,
    getItemKey: (i) => rows[i]!.key,
  });

  const clampedFocus = Math.min(focusIndex, Math.max(0, rows.length - 1));

  // The list filters a frame behind the text box (useDeferredValue); keys pressed in the box act on what was typed.
  const rowsForTyped = () => (deferredText === text ? rows : buildRows({ apis: apis ?? [], operations, collapsedApis, toggledGroups, mode, filter: { text, methods, tag } }));
  const [pendingFocus, setPendingFocus] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (pendingFocus === undefined || deferredText !== text) return;
    setPendingFocus(undefined);
    focusRow(pendingFocus);
  });
  const focusRow = (index: number) => {
    const i = Math.max(0, Math.min(rows.length - 1, index));
    setFocusIndex(i);
    virtualizer.scrollToIndex(i, { align: "auto" });
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-row="${i}"]`)?.focus());
  };

  const toggleApi = (name: string) => setCollapsedApis((s) => toggle(s, name));
  const toggleGroup = (row: Extract<SidebarRow, { kind: "group" }>) => setToggledGroups((s) => toggle(s, groupKey(row.api, mode, row.name)));
  const activate = (row: SidebarRow) => {
    if (row.kind === "api") toggleApi(row.api.name);
    else if (row.kind === "group") toggleGroup(row);
    else if (row.kind === "op") actions.openOperation(row.api, row.op.id);
  };
  const filtering = text !== "" || methods.size > 0 || tag !== "";
  const clearFilter = () => {
    setText("");
    setMethods(new Set());
    setTag("");
  };

  return (
    <div className="sidebar">
      <div className="sidebar-head">
        <h2 className="section-title">APIs</h2>
        <span className="muted sidebar-count" aria-live="polite">
          {filtering ? `${shownOps} of ${totalOps.toLocaleString()} operations` : `${totalOps.toLocaleString()} operations`}
        </span>
        <button className="icon-btn" onClick={() => actions.addApi()} aria-label="Add an API" title="Add an API (Alt+A)">
          +
        </button>
      </div>
      <div className="sidebar-filters">
        <input
          ref={filterRef}
          className="input sidebar-search"
          type="search"
          placeholder="Filter operations   /"
          aria-label="Filter operations by text"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              const index = rowsForTyped().findIndex((r) => r.kind === "op");
              if (deferredText === text) focusRow(index);
              else setPendingFocus(index);
            } else if (e.key === "Escape" && text) {
              e.preventDefault();
              setText("");
            } else if (e.key === "Enter") {
              const first = rowsForTyped().find((r) => r.kind === "op");
              if (first) activate(first);
            }
          }}
        />
        <div className="sidebar-filter-row">
          <div className="method-filters" role="group" aria-label="Filter by method">
            {METHODS.map((m) => (
              <button key={m} className={`method-toggle ${methodClass(m)}`} aria-pressed={methods.has(m)} onClick={() => setMethods((s) => toggle(s, m))}>
                {m}
              </button>
            ))}
          </div>
        </div>
        <div className="sidebar-filter-row">
          <select className="select sidebar-tag" aria-label="Filter by tag" value={tag} onChange={(e) => setTag(e.target.value)}>
            <option value="">All tags</option>
            {tags.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <div className="segmented" role="group" aria-label="Group operations">
            <button aria-pressed={mode === "tag"} onClick={() => setMode("tag")}>
              By tag
            </button>
            <button aria-pressed={mode === "path"} onClick={() => setMode("path")}>
              By path
            </button>
          </div>
        </div>
      </div>
      {error && (
        <div className="error-banner sidebar-note" role="alert">
          <span>
            <strong>Could not list the APIs.</strong> {error}
          </span>
        </div>
      )}
      {!apis && loading && (
        <div className="sidebar-note muted">
          <span className="spinner" /> Loading APIs…
        </div>
      )}
      {apis && apis.length === 0 && (
        <div className="empty sidebar-empty">
          <h2>No APIs yet</h2>
          <p>Add an OpenAPI or Swagger spec from a file, a URL or pasted text, or drop a spec file anywhere in this window.</p>
          <button className="btn btn-primary" onClick={() => actions.addApi()}>
            Add an API
          </button>
        </div>
      )}
      {apis && apis.length > 0 && rows.length === 0 && filtering && (
        <div className="empty sidebar-empty">
          <p>No operation matches this filter.</p>
          <button className="btn" onClick={clearFilter}>
            Clear the filter
          </button>
        </div>
      )}
      <div
        ref={scrollRef}
        className="sidebar-list"
        role="list"
        aria-label="Operations"
        onKeyDown={(e) => {
          const row = rows[clampedFocus];
          if (!row) return;
          if (e.key === "ArrowDown") focusRow(clampedFocus + 1);
          else if (e.key === "ArrowUp") {
            if (clampedFocus === 0) filterRef.current?.focus();
            else focusRow(clampedFocus - 1);
          } else if (e.key === "Home") focusRow(0);
          else if (e.key === "End") focusRow(rows.length - 1);
          else if (e.key === "PageDown") focusRow(clampedFocus + 15);
          else if (e.key === "PageUp") focusRow(clampedFocus - 15);
          else if (e.key === "ArrowRight" && (row.kind === "api" || row.kind === "group") && !row.expanded) activate(row);
          else if (e.key === "ArrowLeft" && (row.kind === "api" || row.kind === "group") && row.expanded) activate(row);
          else return;
          e.preventDefault();
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            return (
              <div key={item.key} role="listitem" className={`srow srow-${row.kind}`} style={{ transform: `translateY(${item.start}px)`, height: item.size }}>
                <RowContent row={row} index={item.index} focused={item.index === clampedFocus} onActivate={() => activate(row)} onFocus={() => setFocusIndex(item.index)} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function RowContent({ row, index, focused, onActivate, onFocus }: { row: SidebarRow; index: number; focused: boolean; onActivate: () => void; onFocus: () => void }) {
  const actions = useActions();
  const common = { "data-row": index, tabIndex: focused ? 0 : -1, onFocus, onClick: onActivate };
  switch (row.kind) {
    case "api":
      return (
        <>
          <button {...common} className="srow-main" aria-expanded={row.expanded}>
            <span className="caret" aria-hidden>
              {row.expanded ? "▾" : "▸"}
            </span>
            <span className="srow-api-name">{row.api.name}</span>
            <span className="srow-api-title muted">{row.api.title}</span>
            <span className="srow-api-count muted">{row.matches !== undefined ? `${row.matches}/${row.api.operationCount}` : row.api.operationCount}</span>
          </button>
          {row.api.warningCount > 0 && (
            <span className="pill pill-warn srow-warn" title={`${row.api.warningCount.toLocaleString()} repairs while reading the spec; see the API's settings`}>
              <span aria-hidden>⚠</span>
              <span className="sr-only">repairs:</span> {row.api.warningCount.toLocaleString()}
            </span>
          )}
          <button className="icon-btn srow-settings" tabIndex={-1} aria-label={`Settings of ${row.api.name}`} title="Settings, repairs and credentials" onClick={() => actions.openApiSettings(row.api.name)}>
            ⚙
          </button>
        </>
      );
    case "group":
      return (
        <button {...common} className="srow-main" aria-expanded={row.expanded}>
          <span className="caret" aria-hidden>
            {row.expanded ? "▾" : "▸"}
          </span>
          <span className="srow-group-name">{row.name}</span>
          <span className="muted srow-group-count">{row.count}</span>
        </button>
      );
    case "op": {
      const { op } = row;
      return (
        <button {...common} className={`srow-main ${op.deprecated ? "srow-deprecated" : ""}`} title={`${op.method.toUpperCase()} ${op.path}${op.deprecated ? " (deprecated)" : ""}`}>
          <span className={methodClass(op.method)}>{op.method.toUpperCase()}</span>
          <span className="srow-op-text">
            <span className="srow-op-summary">
              {op.summary || op.id}
              {op.deprecated && <span className="pill pill-warn srow-dep">deprecated</span>}
            </span>
            <span className="srow-op-path">{op.path}</span>
          </span>
        </button>
      );
    }
    case "note":
      return <div className={`srow-note ${row.tone === "error" ? "srow-note-error" : "muted"}`}>{row.text}</div>;
  }
}

function toggle<T>(set: ReadonlySet<T>, value: T): Set<T> {
  const next = new Set(set);
  if (next.has(value)) next.delete(value);
  else next.add(value);
  return next;
}
