/**
 * Connect an agent: the MCP endpoint and its token, and ready-made config for
 * Claude Desktop, Claude Code and Cursor. The token is masked on screen (it is
 * a credential) and copied whole.
 */
import { useState } from "react";
import type { ConnectInfo } from "../../shared/contract.ts";
import { errorMessage } from "../bridge/index.ts";
import { useToast } from "../app/toasts.tsx";
import { useChannel, useWorkbench } from "../app/workbench-context.tsx";
import { CopyButton } from "../common/CopyButton.tsx";
import "./ConnectView.css";

const CLIENTS: { key: keyof ConnectInfo["snippets"]; label: string; hint: string }[] = [
  { key: "claudeDesktop", label: "Claude Desktop", hint: "Add this to claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop." },
  { key: "claudeCode", label: "Claude Code", hint: "Run this in a terminal; Claude Code picks the server up in new sessions." },
  { key: "cursor", label: "Cursor", hint: "Add this to ~/.cursor/mcp.json (or .cursor/mcp.json in a project)." },
];

export function ConnectView() {
  const info = useChannel("connect.info", {});
  const api = useWorkbench();
  const notify = useToast();
  const [reveal, setReveal] = useState(false);
  const [client, setClient] = useState<(typeof CLIENTS)[number]["key"]>("claudeDesktop");
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [rotated, setRotated] = useState<ConnectInfo>();
  const data = rotated ?? info.data;

  const rotate = async () => {
    try {
      setRotated(await api["connect.rotate"]({}));
      setConfirmRotate(false);
      notify({ kind: "success", text: "New token made. Agents using the old one must be set up again with the new config." });
    } catch (err) {
      notify({ kind: "error", text: `Could not rotate the token: ${errorMessage(err)}` });
    }
  };

  const mask = (text: string) => (data && !reveal ? text.split(data.token).join("•".repeat(12)) : text);
  const current = CLIENTS.find((c) => c.key === client)!;

  return (
    <div className="view connect scroll">
      <header className="view-head">
        <h1>Connect an agent</h1>
      </header>
      <p className="muted connect-intro">
        Any MCP client can search your APIs and run programs here. Reads go straight through; every write waits for you in Approvals. Each run is kept
        under Runs with the client's name.
      </p>
      {info.error && (
        <div className="error-banner" role="alert">
          <span>
            <strong>Could not read the connection details.</strong> {info.error}
          </span>
          <button className="btn btn-small" onClick={info.reload}>
            Retry
          </button>
        </div>
      )}
      {!data && !info.error && <span className="spinner" />}
      {data && (
        <>
          <dl className="connect-facts">
            <dt>MCP endpoint (Streamable HTTP)</dt>
            <dd>
              <code data-testid="mcp-url">{data.mcpUrl}</code>
              <CopyButton text={data.mcpUrl} />
            </dd>
            <dt>Bearer token</dt>
            <dd>
              <code className="connect-token">{reveal ? data.token : "•".repeat(24)}</code>
              <button className="btn btn-small" onClick={() => setReveal(!reveal)} aria-pressed={reveal}>
                {reveal ? "Hide" : "Show"}
              </button>
              <CopyButton text={data.token} />
              {confirmRotate ? (
                <span className="toolbar">
                  <span>Agents using the current token stop working.</span>
                  <button className="btn btn-small btn-danger" onClick={rotate}>
                    Rotate
                  </button>
                  <button className="btn btn-small" onClick={() => setConfirmRotate(false)}>
                    Keep
                  </button>
                </span>
              ) : (
                <button className="btn btn-small" onClick={() => setConfirmRotate(true)}>
                  Rotate…
                </button>
              )}
            </dd>
            <dt>For clients that start a process (stdio)</dt>
            <dd>
              <code>{stdioLine(data)}</code>
              <CopyButton text={stdioLine(data)} />
            </dd>
          </dl>
          <section className="connect-snippets">
            <div className="segmented" role="tablist" aria-label="Client">
              {CLIENTS.map((c) => (
                <button key={c.key} role="tab" id={`client-${c.key}`} aria-controls="client-panel" aria-selected={client === c.key} onClick={() => setClient(c.key)}>
                  {c.label}
                </button>
              ))}
            </div>
            <div className="connect-snippet" role="tabpanel" id="client-panel" aria-labelledby={`client-${client}`}>
              <p className="muted">{current.hint}</p>
              <div className="connect-code">
                <pre>{mask(data.snippets[client])}</pre>
                <CopyButton text={data.snippets[client]} label="Copy config" className="btn btn-small connect-copy" />
              </div>
              {!reveal && <p className="muted">The token is masked here; Copy config copies it whole.</p>}
            </div>
          </section>
        </>
      )}
    </div>
  );
}

/** The command as a shell line, with the environment it needs in front (`ELECTRON_RUN_AS_NODE=1 …` in the app). */
function stdioLine(info: { stdioCommand: string[]; stdioEnv?: Record<string, string> }): string {
  const env = Object.entries(info.stdioEnv ?? {}).map(([name, value]) => `${name}=${value}`);
  return [...env, ...info.stdioCommand].join(" ");
}
