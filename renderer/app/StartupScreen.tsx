/** What the window shows before the workbench can: loading, no session, or no host. */
import "./StartupScreen.css";

export function StartupScreen({ kind, message }: { kind: "loading" | "no-session" | "unreachable"; message?: string }) {
  if (kind === "loading") {
    return (
      <main className="startup" aria-busy="true">
        <span className="spinner" /> <span className="muted">Connecting to the workbench…</span>
      </main>
    );
  }
  if (kind === "no-session") {
    return (
      <main className="startup">
        <div className="startup-card">
          <h1>This tab has no workbench session</h1>
          <p>
            For your safety the workbench only answers tabs opened from the link it prints. Open the URL printed by{" "}
            <code>workbench serve</code> (or <code>npm start</code>) in this browser; it looks like:
          </p>
          <pre>http://127.0.0.1:&lt;port&gt;/#token=&lt;token&gt;</pre>
          <p className="muted">
            The link's token is exchanged for a session cookie once, then removed from the address bar. If you restarted the server, the old link no
            longer works: use the new one.
          </p>
        </div>
      </main>
    );
  }
  return (
    <main className="startup">
      <div className="startup-card">
        <h1>The workbench host is not answering</h1>
        <p>{message}</p>
        <p className="muted">
          Start it with <code>npm start</code> or <code>workbench serve</code>, then open the URL it prints.
        </p>
        <button className="btn btn-primary" onClick={() => location.reload()}>
          Try again
        </button>
      </div>
    </main>
  );
}
