/** The middle area's tab strip: arrow keys move between tabs, Delete or Alt+W closes one. */
import { useRef } from "react";
import type { SavedProgram } from "../../shared/contract.ts";
import type { ProgramMeta } from "./App.tsx";
import { VIEW_TITLES, type Tab } from "./tabs.ts";
import "./TabBar.css";

export function TabBar({
  tabs,
  active,
  onSelect,
  onClose,
  programs,
  meta,
  pendingCount,
}: {
  tabs: Tab[];
  active: string | null;
  onSelect: (key: string) => void;
  onClose: (key: string) => void;
  programs: SavedProgram[];
  meta: Record<string, ProgramMeta>;
  pendingCount: number;
}) {
  const list = useRef<HTMLDivElement>(null);
  const focusTab = (index: number) => {
    const tab = tabs[(index + tabs.length) % tabs.length];
    if (!tab) return;
    onSelect(tab.key);
    list.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(tab.key)}"]`)?.focus();
  };
  return (
    <div className="tabbar" role="tablist" aria-label="Open tabs" ref={list}>
      {tabs.map((tab, index) => {
        const { title, icon, hint } = describe(tab, programs, meta, pendingCount);
        const selected = tab.key === active;
        return (
          <div key={tab.key} className={`tab ${selected ? "tab-active" : ""}`} role="presentation">
            <button
              id={`tab-${tab.key}`}
              data-key={tab.key}
              role="tab"
              aria-selected={selected}
              aria-controls={`panel-${tab.key}`}
              tabIndex={selected ? 0 : -1}
              className="tab-button"
              title={`${hint} (Delete or Alt+W closes it)`}
              aria-keyshortcuts="Delete"
              onClick={() => onSelect(tab.key)}
              onMouseDown={(e) => {
                if (e.button === 1) {
                  e.preventDefault();
                  onClose(tab.key);
                }
              }}
              onKeyDown={(e) => {
                if (e.key === "ArrowRight") focusTab(index + 1);
                else if (e.key === "ArrowLeft") focusTab(index - 1);
                else if (e.key === "Home") focusTab(0);
                else if (e.key === "End") focusTab(tabs.length - 1);
                else if (e.key === "Delete") onClose(tab.key);
                else return;
                e.preventDefault();
              }}
            >
              {icon}
              <span className="tab-title">{title}</span>
            </button>
            {/* Mouse only: the keyboard closes a tab with Delete, so the tab strip holds nothing but tabs. */}
            <button className="tab-close" tabIndex={-1} aria-hidden="true" onClick={() => onClose(tab.key)}>
              ×
            </button>
          </div>
        );
      })}
    </div>
  );
}

function describe(tab: Tab, programs: SavedProgram[], meta: Record<string, ProgramMeta>, pendingCount: number) {
  switch (tab.kind) {
    case "operation": {
      return { title: tab.operationId, icon: <span className="tab-icon tab-icon-op">op</span>, hint: `${tab.api} · ${tab.operationId}` };
    }
    case "program": {
      const program = programs.find((p) => p.id === tab.programId);
      const running = meta[tab.programId]?.running;
      return {
        title: program?.name || "Untitled",
        icon: running ? <span className="spinner tab-spinner" aria-label="running" /> : <span className="tab-icon tab-icon-js">JS</span>,
        hint: program ? `${program.name} (${program.policy === "all" ? "can write, with approval" : "read-only"})` : "",
      };
    }
    case "run":
      return { title: tab.runId, icon: <span className="tab-icon">run</span>, hint: `Run ${tab.runId}` };
    case "api":
      return { title: `${tab.api} settings`, icon: <span className="tab-icon">api</span>, hint: `Settings of ${tab.api}` };
    default:
      return {
        title: tab.kind === "inbox" && pendingCount ? `${VIEW_TITLES[tab.kind]} (${pendingCount})` : VIEW_TITLES[tab.kind],
        icon: null,
        hint: VIEW_TITLES[tab.kind],
      };
  }
}
