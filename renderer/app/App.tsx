/**
 * The window: APIs on the left, tabs in the middle, the run console below,
 * approvals, runs, vault and agent connection one click away in the top bar.
 * This component owns the layout and the cross-cutting state (tabs, programs,
 * the console's run); each view owns its own data.
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { OpenTarget, ReplyOf } from "../../shared/contract.ts";
import { decisionSummary } from "../../shared/runs.ts";
import type { Envelope } from "../../shared/envelope.ts";
import { errorMessage } from "../bridge/index.ts";
import { ActionsContext, editorRegistry, type ViewKind, type WorkbenchActions } from "./actions.ts";
import { DEFAULT_PROGRAM, usePrograms } from "./programs.ts";
import { launchTarget, refToTab, tabKey, tabToRef, type Tab } from "./tabs.ts";
import { usePersisted } from "./persisted.ts";
import { useBridge, useChannel, useEvents, useStreamState } from "./workbench-context.tsx";
import { useToast } from "./toasts.tsx";
import { Splitter } from "./Splitter.tsx";
import { TabBar } from "./TabBar.tsx";
import { TopBar } from "./TopBar.tsx";
import { Welcome } from "./Welcome.tsx";
import { ShortcutsDialog } from "./ShortcutsDialog.tsx";
import { ApiSidebar } from "../sidebar/ApiSidebar.tsx";
import { OperationView } from "../operation/OperationView.tsx";
import { RunConsole, type ConsoleState } from "../run/RunConsole.tsx";
import { InboxView } from "../inbox/InboxView.tsx";
import { HistoryView } from "../history/HistoryView.tsx";
import { RunView } from "../history/RunView.tsx";
import { VaultView } from "../vault/VaultView.tsx";
import { ConnectView } from "../connect/ConnectView.tsx";
import { SettingsView } from "../settings/SettingsView.tsx";
import { AddApiDialog } from "../addapi/AddApiDialog.tsx";
import { ApiSettingsView } from "../addapi/ApiSettingsView.tsx";
import "./App.css";

// The first tab is usually a program: fetch Monaco while the window starts, not after it has rendered.
const loadProgramTab = () => import("../editor/ProgramTab.tsx");
const ProgramTab = lazy(loadProgramTab);
void loadProgramTab();

export type AppInfo = ReplyOf<"app.info">;

/** Per-program state that does not need to survive a restart. */
export interface ProgramMeta {
  /** The run this program was opened from: running it replays that run with the edited code. */
  parentRunId?: string;
  /** When replaying: reuse the parent's saved responses (true) or send every call again. */
  reuseSaved?: boolean;
  running?: boolean;
}

export function App({ info }: { info: AppInfo }) {
  const bridge = useBridge();
  const api = bridge.api;
  const notify = useToast();
  const stream = useStreamState();
  const apis = useChannel("apis.list", {}, ["apis.changed"]);
  const decisions = useChannel("decisions.list", {}, ["decision.requested", "decision.made", "run.finished"]);
  const programs = usePrograms(bridge);

  const [tabs, setTabs] = useState<Tab[]>([]);
  const [active, setActive] = useState<string | null>(null);
  const [meta, setMeta] = useState<Record<string, ProgramMeta>>({});
  const [consoleState, setConsole] = useState<ConsoleState>({ running: false });
  const [dialog, setDialog] = useState<{ kind: "add"; file?: File } | { kind: "shortcuts" } | null>(null);
  const [sidebarWidth, setSidebarWidth] = usePersisted("sidebarWidth", 320);
  const [consoleHeight, setConsoleHeight] = usePersisted("consoleHeight", 280);
  const [dragging, setDragging] = useState(false);
  const lastProgram = useRef<string | null>(null);
  const awaitingUiRun = useRef(false);
  const filterRef = useRef<HTMLInputElement>(null);
  const [inboxFocus, setInboxFocus] = useState<{ runId: string }>();
  /** The desktop app reopens the last session's tabs; until they are back, nothing is saved over them. */
  const [sessionRestored, setSessionRestored] = useState(false);

  // Program tabs follow the saved programs: one tab each, opened once they load.
  const programsOpened = useRef(false);
  useEffect(() => {
    if (!programs.loaded || programsOpened.current) return;
    programsOpened.current = true;
    let list = programs.programs;
    if (list.length === 0) {
      list = [programs.create({ name: "Program 1", code: DEFAULT_PROGRAM(apis.data?.[0]?.name ?? "petstore") })];
    }
    setTabs((t) => [...list.map((p): Tab => ({ kind: "program", key: tabKey.program(p.id), programId: p.id })), ...t]);
    setActive((a) => a ?? tabKey.program(list[0]!.id));
    lastProgram.current = list[0]!.id;
    if (info.shell !== "electron") return;
    const known = new Set(list.map((p) => p.id));
    api["ui.session.get"]({})
      .then((saved) => {
        if (!saved) return;
        const restored = saved.tabs.filter((ref) => ref.kind !== "program" || known.has(ref.programId)).map(refToTab);
        const keys = new Set(restored.map((t) => t.key));
        setTabs((open) => [...restored, ...open.filter((t) => !keys.has(t.key))]);
        const activeRef = saved.active === undefined ? undefined : saved.tabs[saved.active];
        if (activeRef) setActive(refToTab(activeRef).key);
      })
      .catch(() => {})
      .finally(() => setSessionRestored(true));
  }, [programs, apis.data, info.shell, api]);

  useEffect(() => {
    if (!sessionRestored) return;
    const timer = setTimeout(() => {
      const index = tabs.findIndex((t) => t.key === active);
      void api["ui.session.save"]({ tabs: tabs.slice(0, 100).map(tabToRef), ...(index >= 0 && index < 100 ? { active: index } : {}) }).catch(() => {});
    }, 400);
    return () => clearTimeout(timer);
  }, [sessionRestored, tabs, active, api]);

  const openTab = useCallback((tab: Tab) => {
    setTabs((all) => (all.some((t) => t.key === tab.key) ? all : [...all, tab]));
    setActive(tab.key);
  }, []);

  const activeTab = tabs.find((t) => t.key === active);
  useEffect(() => {
    if (activeTab?.kind === "program") lastProgram.current = activeTab.programId;
  }, [activeTab]);

  const newProgram = useCallback<WorkbenchActions["newProgram"]>(
    (options = {}) => {
      const program = programs.create({
        code: options.code ?? DEFAULT_PROGRAM(apis.data?.[0]?.name),
        policy: options.policy ?? "read_only",
        ...(options.name ? { name: options.name } : {}),
      });
      if (options.parentRunId) setMeta((m) => ({ ...m, [program.id]: { parentRunId: options.parentRunId, reuseSaved: true } }));
      openTab({ kind: "program", key: tabKey.program(program.id), programId: program.id });
      lastProgram.current = program.id;
      return program.id;
    },
    [programs, apis.data, openTab],
  );

  const closeTab = useCallback(
    (key: string) => {
      const index = tabs.findIndex((t) => t.key === key);
      const tab = tabs[index];
      if (!tab) return;
      const rest = tabs.filter((t) => t.key !== key);
      setTabs(rest);
      if (active === key) setActive(rest[Math.min(index, rest.length - 1)]?.key ?? null);
      if (tab.kind === "program") {
        const programIndex = programs.programs.findIndex((p) => p.id === tab.programId);
        const removed = programs.remove(tab.programId);
        if (removed && removed.code.trim()) {
          notify({
            kind: "info",
            text: `Closed "${removed.name}".`,
            action: {
              label: "Undo",
              run: () => {
                programs.restore(removed, programIndex);
                openTab({ kind: "program", key: tabKey.program(removed.id), programId: removed.id });
              },
            },
          });
        }
      }
    },
    [tabs, active, programs, notify, openTab],
  );

  const runProgram = useCallback(
    async (programId: string) => {
      const program = programs.programs.find((p) => p.id === programId);
      if (!program) return;
      const m = meta[programId] ?? {};
      if (m.running) return;
      setMeta((all) => ({ ...all, [programId]: { ...all[programId], running: true } }));
      setConsole({ running: true, programId, startedAt: Date.now() });
      awaitingUiRun.current = true;
      try {
        const envelope: Envelope = m.parentRunId
          ? await api["runs.replay"]({ id: m.parentRunId, code: program.code, fresh: !(m.reuseSaved ?? true) })
          : await api["runs.execute"]({ code: program.code, policy: program.policy });
        setConsole({ running: false, programId, runId: envelope.run, envelope });
        if (envelope.status === "pending") {
          notify({ kind: "info", text: "The program waits for your approval of a call.", action: { label: "Review", run: () => actions.openView("inbox") } });
        }
      } catch (err) {
        setConsole({ running: false, programId, error: errorMessage(err) });
      } finally {
        awaitingUiRun.current = false;
        setMeta((all) => ({ ...all, [programId]: { ...all[programId], running: false } }));
      }
    },
    [programs.programs, meta, api, notify],
  );

  useEvents((event) => {
    if (event.type === "app.open") showTarget(event.target);
    if (event.type === "run.updated" && awaitingUiRun.current && event.run.source.kind === "ui" && event.run.status === "running") {
      awaitingUiRun.current = false;
      setConsole((c) => (c.running && !c.runId ? { ...c, runId: event.run.id } : c));
    }
    if (event.type === "decision.requested" && event.decision.requestedBy.kind === "mcp") {
      notify({
        kind: "info",
        text: `${event.decision.requestedBy.client ?? "An agent"} asks to send ${decisionSummary(event.decision)}.`,
        action: { label: "Review", run: () => actions.openView("inbox") },
      });
    }
  });

  const actions = useMemo<WorkbenchActions>(
    () => ({
      openOperation: (apiName, operationId) => openTab({ kind: "operation", key: tabKey.operation(apiName, operationId), api: apiName, operationId }),
      newProgram,
      insertIntoProgram(snippet) {
        const target = activeTab?.kind === "program" ? activeTab.programId : lastProgram.current;
        const program = target ? programs.programs.find((p) => p.id === target) : undefined;
        const text = (code: string) => (typeof snippet === "string" ? snippet : snippet(code));
        if (!program) {
          newProgram({ code: `${text("")}\n` });
          return;
        }
        setActive(tabKey.program(program.id));
        const editor = editorRegistry.get(program.id);
        if (editor) {
          editor.insert(snippet);
          setTimeout(() => editor.focus(), 0);
        } else {
          programs.update(program.id, { code: `${program.code.replace(/\n*$/, "\n")}${text(program.code)}\n` });
        }
      },
      openRun: (runId) => openTab({ kind: "run", key: tabKey.run(runId), runId }),
      showInConsole: (runId) => setConsole({ running: false, runId }),
      openView: (kind: ViewKind) => openTab({ kind, key: kind }),
      openApiSettings: (apiName) => openTab({ kind: "api", key: tabKey.api(apiName), api: apiName }),
      addApi: (file) => setDialog({ kind: "add", ...(file ? { file } : {}) }),
      focusOperationFilter: () => filterRef.current?.focus(),
    }),
    [openTab, newProgram, activeTab, programs],
  );

  /** A run or the inbox, asked for from outside the window: a notification, the tray, a link, `workbench open`. */
  const showTarget = useCallback(
    (target: OpenTarget) => {
      if (target.kind === "run") return actions.openRun(target.runId);
      setInboxFocus(target.runId ? { runId: target.runId } : undefined);
      actions.openView("inbox");
    },
    [actions],
  );
  useEffect(() => {
    const target = launchTarget(location.hash);
    if (!target) return;
    history.replaceState(null, "", location.pathname + location.search);
    showTarget(target);
  }, [showTarget]);

  // Window-wide shortcuts. Single keys only fire outside text fields.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      const typing = target.closest("input, textarea, select, [contenteditable=true], .monaco-editor");
      if (e.altKey && !e.ctrlKey && !e.metaKey) {
        const key = e.key.toLowerCase();
        const code = e.code;
        const map: Record<string, () => void> = {
          KeyN: () => newProgram(),
          KeyI: () => actions.openView("inbox"),
          KeyH: () => actions.openView("history"),
          KeyV: () => actions.openView("vault"),
          KeyC: () => actions.openView("connect"),
          KeyS: () => actions.openView("settings"),
          KeyA: () => actions.addApi(),
          KeyW: () => active && closeTab(active),
        };
        const run = map[code] ?? (key === "/" ? () => actions.focusOperationFilter() : undefined);
        if (run) {
          e.preventDefault();
          run();
        }
        return;
      }
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter" && activeTab?.kind === "program" && !target.closest(".monaco-editor")) {
        // Monaco runs its own Ctrl+Enter; this covers focus on the program's toolbar.
        e.preventDefault();
        void runProgram(activeTab.programId);
        return;
      }
      if (typing || e.ctrlKey || e.metaKey) return;
      if (e.key === "/") {
        e.preventDefault();
        actions.focusOperationFilter();
      } else if (e.key === "?") {
        e.preventDefault();
        setDialog({ kind: "shortcuts" });
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [actions, newProgram, active, closeTab, activeTab, runProgram]);

  const pendingCount = decisions.data?.length ?? 0;
  useEffect(() => {
    document.title = pendingCount ? `(${pendingCount}) Codemode Workbench` : "Codemode Workbench";
  }, [pendingCount]);

  const onDrop = (e: React.DragEvent) => {
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (!file) return;
    e.preventDefault();
    setDialog({ kind: "add", file });
  };

  return (
    <ActionsContext.Provider value={actions}>
      <div
        className="app"
        onDragOver={(e) => {
          if (dialog?.kind === "add" || !e.dataTransfer.types.includes("Files")) return;
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={(e) => {
          if (e.relatedTarget === null || !(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node)) setDragging(false);
        }}
        onDrop={onDrop}
      >
        <TopBar pendingCount={pendingCount} onShortcuts={() => setDialog({ kind: "shortcuts" })} />
        <div className="app-main">
          <aside className="app-sidebar" style={{ width: sidebarWidth }} aria-label="APIs and operations">
            <ApiSidebar apis={apis.data} error={apis.error} loading={apis.loading} filterRef={filterRef} />
            <Splitter orientation="vertical" value={sidebarWidth} min={220} max={640} onChange={setSidebarWidth} label="Resize the API list" />
          </aside>
          <div className="app-center">
            <main className="app-tabs" aria-label="Workspace">
              {tabs.length > 0 && <TabBar tabs={tabs} active={active} onSelect={setActive} onClose={closeTab} programs={programs.programs} meta={meta} pendingCount={pendingCount} />}
              {programs.error && (
                <div className="error-banner app-banner" role="alert">
                  <strong>Programs</strong> {programs.error}
                </div>
              )}
              <div className="app-tab-panels">
                {tabs.length === 0 && <Welcome hasApis={(apis.data?.length ?? 0) > 0} />}
                {tabs.map((tab) => (
                  <section key={tab.key} id={`panel-${tab.key}`} role="tabpanel" aria-labelledby={`tab-${tab.key}`} className="app-tab-panel" hidden={tab.key !== active}>
                    <TabContent
                      tab={tab}
                      visible={tab.key === active}
                      programs={programs}
                      meta={meta}
                      setMeta={setMeta}
                      runProgram={runProgram}
                      decisions={decisions}
                      inboxFocus={inboxFocus}
                    />
                  </section>
                ))}
              </div>
            </main>
            <section className="app-console" style={{ height: consoleHeight }} aria-label="Run console">
              <Splitter orientation="horizontal" value={consoleHeight} min={120} max={900} onChange={setConsoleHeight} label="Resize the run console" invert />
              <RunConsole state={consoleState} />
            </section>
          </div>
        </div>
        <footer className="app-status">
          <span className={`status-dot ${stream === "open" ? "status-ok" : "status-warn"}`} aria-hidden />
          <span>{stream === "open" ? "Connected" : "Reconnecting to the host…"}</span>
          <span className="muted">
            Workbench {info.version} · {info.shell === "electron" ? "app" : "browser"} · data in {info.dataDir}
          </span>
          <span className="spacer" />
          <button className="status-link" onClick={() => setDialog({ kind: "shortcuts" })}>
            Keyboard shortcuts <kbd>?</kbd>
          </button>
        </footer>
        {dragging && (
          <div className="drop-overlay" aria-hidden>
            <div>Drop an OpenAPI spec (JSON or YAML) to add it</div>
          </div>
        )}
        {dialog?.kind === "add" && <AddApiDialog initialFile={dialog.file} onClose={() => setDialog(null)} />}
        {dialog?.kind === "shortcuts" && <ShortcutsDialog onClose={() => setDialog(null)} />}
      </div>
    </ActionsContext.Provider>
  );
}

function TabContent({
  tab,
  visible,
  programs,
  meta,
  setMeta,
  runProgram,
  decisions,
  inboxFocus,
}: {
  tab: Tab;
  visible: boolean;
  programs: ReturnType<typeof usePrograms>;
  meta: Record<string, ProgramMeta>;
  setMeta: React.Dispatch<React.SetStateAction<Record<string, ProgramMeta>>>;
  runProgram: (id: string) => Promise<void>;
  decisions: ReturnType<typeof useChannel<"decisions.list">>;
  inboxFocus: { runId: string } | undefined;
}) {
  switch (tab.kind) {
    case "operation":
      return <OperationView api={tab.api} operationId={tab.operationId} />;
    case "program": {
      const program = programs.programs.find((p) => p.id === tab.programId);
      if (!program) return null;
      return (
        <Suspense fallback={<div className="empty"><span className="spinner" /> Loading the editor…</div>}>
          <ProgramTab
            program={program}
            visible={visible}
            meta={meta[program.id] ?? {}}
            onChange={(patch) => programs.update(program.id, patch)}
            onMeta={(patch) => setMeta((m) => ({ ...m, [program.id]: { ...m[program.id], ...patch } }))}
            onRun={() => runProgram(program.id)}
          />
        </Suspense>
      );
    }
    case "run":
      return <RunView runId={tab.runId} />;
    case "api":
      return <ApiSettingsView api={tab.api} />;
    case "inbox":
      return <InboxView decisions={decisions.data} error={decisions.error} reload={decisions.reload} visible={visible} focusRunId={inboxFocus} />;
    case "history":
      return <HistoryView visible={visible} />;
    case "vault":
      return <VaultView />;
    case "connect":
      return <ConnectView />;
    case "settings":
      return <SettingsView />;
  }
}
