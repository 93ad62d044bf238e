/** The top bar: the app's name, new program / add API, and the views one click away. */
import { useActions } from "./actions.ts";
import "./TopBar.css";

export function TopBar({ pendingCount, onShortcuts }: { pendingCount: number; onShortcuts: () => void }) {
  const actions = useActions();
  return (
    <header className="topbar">
      <h1 className="topbar-brand">
        <span className="topbar-logo" aria-hidden>
          {"{ }"}
        </span>
        Codemode Workbench
      </h1>
      <nav className="topbar-actions" aria-label="Main">
        <button className="btn btn-small" onClick={() => actions.newProgram()} title="New program (Alt+N)">
          New program
        </button>
        <button className="btn btn-small" onClick={() => actions.addApi()} title="Add an API (Alt+A)">
          Add API
        </button>
        <span className="topbar-sep" />
        <button
          className={`btn btn-small ${pendingCount ? "topbar-inbox-active" : ""}`}
          onClick={() => actions.openView("inbox")}
          title="Approvals inbox (Alt+I)"
        >
          Approvals
          <span className={`badge ${pendingCount ? "badge-hot" : ""}`}>
            <span data-testid="inbox-badge">{pendingCount}</span>
            <span className="sr-only"> waiting</span>
          </span>
        </button>
        <button className="btn btn-small" onClick={() => actions.openView("history")} title="Runs history (Alt+H)">
          Runs
        </button>
        <button className="btn btn-small" onClick={() => actions.openView("vault")} title="Vault (Alt+V)">
          Vault
        </button>
        <button className="btn btn-small" onClick={() => actions.openView("connect")} title="Connect an agent (Alt+C)">
          Connect an agent
        </button>
        <button className="btn btn-small" onClick={() => actions.openView("settings")} title="Settings: limits for agents (Alt+S)">
          Settings
        </button>
        <button className="icon-btn" onClick={onShortcuts} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">
          ?
        </button>
      </nav>
    </header>
  );
}
