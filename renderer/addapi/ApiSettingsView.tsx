/** One API's settings: what was read, what was repaired, its configuration, its allow rules; remove it. */
import { useEffect, useState } from "react";
import type { ApiSummary } from "../../shared/contract.ts";
import type { SecurityScheme } from "../../shared/artifact.ts";
import { errorMessage } from "../bridge/index.ts";
import { useToast } from "../app/toasts.tsx";
import { useChannel, useWorkbench } from "../app/workbench-context.tsx";
import { formatTime } from "../common/format.ts";
import { ApiConfigForm, configFromDraft, draftFromConfig, type ConfigDraft } from "./ApiConfigForm.tsx";
import { RepairReport } from "./RepairReport.tsx";
import { SignInPanel } from "./SignInPanel.tsx";
import "./ApiSettingsView.css";

export function ApiSettingsView({ api: name }: { api: string }) {
  const apis = useChannel("apis.list", {}, ["apis.changed"]);
  const summary = apis.data?.find((a) => a.name === name);
  if (apis.error) return <div className="empty"><p>{apis.error}</p></div>;
  if (!apis.data) return <div className="empty"><span className="spinner" /></div>;
  if (!summary) {
    return (
      <div className="empty">
        <h2>No API named {name}</h2>
        <p>It was removed. Close this tab.</p>
      </div>
    );
  }
  return <Settings summary={summary} />;
}

function describeScheme(name: string, scheme: SecurityScheme): string {
  switch (scheme.type) {
    case "http":
      return `${name} (HTTP ${scheme.scheme})`;
    case "apiKey":
      return `${name} (API key in ${scheme.in} ${scheme.name})`;
    case "oauth2":
      return `${name} (OAuth2: ${[scheme.flows.authorizationCode && "sign-in", scheme.flows.deviceAuthorization && "sign-in with a code", scheme.flows.clientCredentials && "client credentials"].filter(Boolean).join(", ") || "no usable flow"})`;
    case "openIdConnect":
      return `${name} (OpenID Connect sign-in)`;
    default:
      return `${name} (${scheme.type})`;
  }
}

function Settings({ summary }: { summary: ApiSummary }) {
  const api = useWorkbench();
  const notify = useToast();
  const warnings = useChannel("apis.warnings", { api: summary.name }, ["apis.changed"]);
  const rules = useChannel("rules.list", {}, ["decision.made", "apis.changed"]);
  const [draft, setDraft] = useState<ConfigDraft>(() => draftFromConfig(summary.config, summary.baseUrl));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const configKey = JSON.stringify(summary.config);
  useEffect(() => setDraft(draftFromConfig(summary.config, summary.baseUrl)), [configKey]);
  const built = configFromDraft(draft, summary.config);
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftFromConfig(summary.config, summary.baseUrl));
  const myRules = rules.data?.filter((r) => r.api === summary.name) ?? [];

  const save = async () => {
    if (!built.config) return;
    setSaving(true);
    setError(undefined);
    try {
      const ack = await api["apis.update"]({ name: summary.name, config: built.config });
      if (!ack.ok) setError(ack.message);
      else notify({ kind: "success", text: `Saved the settings of ${summary.name}.` });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  const remove = async () => {
    try {
      const ack = await api["apis.remove"]({ name: summary.name });
      if (!ack.ok) notify({ kind: "error", text: ack.message });
      else notify({ kind: "success", text: `Removed ${summary.name}. Its past runs stay in the history.` });
    } catch (err) {
      notify({ kind: "error", text: `Not removed: ${errorMessage(err)}` });
    }
  };

  return (
    <div className="view apiset scroll">
      <header className="view-head">
        <h1>
          {summary.name} <span className="muted apiset-title">{summary.title}</span>
        </h1>
      </header>
      <dl className="apiset-facts">
        <dt>Version</dt>
        <dd>{summary.version}</dd>
        <dt>OpenAPI</dt>
        <dd>{summary.openapi}</dd>
        <dt>Operations</dt>
        <dd>{summary.operationCount.toLocaleString()}</dd>
        <dt>Source</dt>
        <dd>
          {summary.source.kind}
          {summary.source.location ? <code> {summary.source.location}</code> : null}
        </dd>
        <dt>Base URL</dt>
        <dd>
          <code>{summary.baseUrl || "(none: set one below)"}</code>
        </dd>
      </dl>
      <section className="apiset-section">
        <h2 className="section-title">Settings</h2>
        <form
          className="apiset-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <ApiConfigForm
            draft={draft}
            onChange={setDraft}
            servers={summary.baseUrl ? [{ url: summary.baseUrl }] : []}
            schemes={Object.entries(summary.securitySchemes).map(([n, s]) => ({ name: n, label: describeScheme(n, s) }))}
            apiName={summary.name}
          />
          {built.problem && <p className="field-error">{built.problem}</p>}
          {error && (
            <div className="error-banner" role="alert">
              <span>
                <strong>Not saved.</strong> {error}
              </span>
            </div>
          )}
          <div className="toolbar">
            <button className="btn btn-primary" disabled={saving || !dirty || !built.config}>
              Save settings
            </button>
            {dirty && (
              <button type="button" className="btn" onClick={() => setDraft(draftFromConfig(summary.config, summary.baseUrl))}>
                Discard changes
              </button>
            )}
          </div>
        </form>
      </section>
      <SignInPanel api={summary.name} />
      <section className="apiset-section">
        <h2 className="section-title">Always allowed operations</h2>
        {myRules.length === 0 ? (
          <p className="muted">None. "Approve and always allow" in the inbox adds one; writes covered by a rule are sent without asking.</p>
        ) : (
          <table className="grid">
            <tbody>
              {myRules.map((r) => (
                <tr key={r.operationId}>
                  <td>
                    <code>{r.operationId}</code>
                  </td>
                  <td className="muted">
                    by {r.createdBy}, {formatTime(r.createdAt)}
                  </td>
                  <td style={{ textAlign: "right" }}>
                    <button className="btn btn-small" onClick={() => api["rules.remove"]({ api: r.api, operationId: r.operationId }).then(rules.reload, (err: unknown) => notify({ kind: "error", text: errorMessage(err) }))}>
                      Ask again
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="apiset-section">
        <h2 className="section-title">Repairs while reading the spec</h2>
        {warnings.error ? <p className="field-error">{warnings.error}</p> : warnings.data ? <RepairReport warnings={warnings.data} /> : <span className="spinner" />}
      </section>
      <section className="apiset-section">
        <h2 className="section-title">Remove</h2>
        {confirmRemove ? (
          <div className="toolbar">
            <span>Remove {summary.name}? Programs calling apis.{summary.name} will fail; past runs stay.</span>
            <button className="btn btn-danger" onClick={remove}>
              Remove
            </button>
            <button className="btn" onClick={() => setConfirmRemove(false)}>
              Keep
            </button>
          </div>
        ) : (
          <button className="btn btn-danger apiset-remove" onClick={() => setConfirmRemove(true)}>
            Remove this API…
          </button>
        )}
      </section>
    </div>
  );
}
