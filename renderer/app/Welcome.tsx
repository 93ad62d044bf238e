/** Shown when no tab is open: what to do next. */
import { useActions } from "./actions.ts";

export function Welcome({ hasApis }: { hasApis: boolean }) {
  const actions = useActions();
  return (
    <div className="empty">
      <h2>Nothing open</h2>
      <p>
        {hasApis
          ? "Pick an operation on the left to read it, or start a program that calls the APIs."
          : "Add an API first: a file, a URL or pasted text of an OpenAPI spec (or drop a spec file anywhere in this window)."}
      </p>
      <div className="toolbar">
        <button className="btn btn-primary" onClick={() => actions.newProgram()}>
          New program <kbd>Alt+N</kbd>
        </button>
        <button className="btn" onClick={() => actions.addApi()}>
          Add API
        </button>
        <button className="btn" onClick={() => actions.openView("connect")}>
          Connect an agent
        </button>
      </div>
    </div>
  );
}
