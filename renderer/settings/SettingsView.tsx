/**
 * Settings: the limits agent programs run under (memory, compute time, wall
 * clock, calls, result size, answer size), saved in the data directory and
 * applied to every agent's next tool call in the app, `workbench serve` and
 * `workbench mcp`. Each field is checked against the same bounds the CLI's
 * flags and the host use; a value set by a flag of the process serving this
 * window wins while it runs, and the screen says so.
 */
import { useEffect, useState } from "react";
import { AGENT_LIMIT_BOUNDS, AGENT_LIMIT_KEYS, boundText, checkLimit, type AgentLimitKey, type AgentLimitsPatch } from "../../shared/limits.ts";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { useToast } from "../app/toasts.tsx";
import { useChannel, useWorkbench } from "../app/workbench-context.tsx";
import "./SettingsView.css";

const LABELS: Record<AgentLimitKey, { label: string; hint: string; flag: string }> = {
  memoryMb: { label: "Memory", hint: "Everything a program allocates, buffers included. Over it: Memory.", flag: "--memory-mb" },
  timeoutMs: { label: "Compute time", hint: "Time spent running the program's own code. Over it: Timeout.", flag: "--timeout-ms" },
  wallMs: { label: "Wall clock", hint: "From start to end, waiting on calls included. Over it: Timeout.", flag: "--wall-ms" },
  maxCalls: { label: "API calls", hint: "Calls one program may make. Over it: CallLimit.", flag: "--max-calls" },
  maxOutputKb: { label: "Result size", hint: "The program's return value as JSON. Over it: OutputTooLarge.", flag: "--max-output-kb" },
  maxResultTokens: { label: "Answer size", hint: "What the agent receives is cut to about this; the run keeps everything.", flag: "--max-result-tokens" },
};

type Draft = Record<AgentLimitKey, string>;

function draftOf(saved: AgentLimitsPatch): Draft {
  return Object.fromEntries(AGENT_LIMIT_KEYS.map((key) => [key, saved[key] === undefined ? "" : String(saved[key])])) as Draft;
}

/** The draft as saved limits (blank fields take the default), or each field's problem. */
function parseDraft(draft: Draft): { saved: AgentLimitsPatch; problems: Partial<Record<AgentLimitKey, string>> } {
  const saved: AgentLimitsPatch = {};
  const problems: Partial<Record<AgentLimitKey, string>> = {};
  for (const key of AGENT_LIMIT_KEYS) {
    const text = draft[key].trim();
    if (!text) continue;
    const checked = /^\d+$/.test(text) ? checkLimit(AGENT_LIMIT_BOUNDS[key], Number(text)) : undefined;
    if (checked?.ok) saved[key] = checked.value;
    else problems[key] = `Must be ${boundText(AGENT_LIMIT_BOUNDS[key])}.`;
  }
  return { saved, problems };
}

export function SettingsView() {
  const limits = useChannel("settings.agentLimits", {}, ["settings.changed"]);
  const api = useWorkbench();
  const notify = useToast();
  const actions = useActions();
  const [draft, setDraft] = useState<Draft>();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const savedKey = JSON.stringify(limits.data?.saved);
  useEffect(() => {
    if (limits.data) setDraft(draftOf(limits.data.saved));
  }, [savedKey]);

  if (limits.error && !limits.data) {
    return (
      <div className="view scroll">
        <div className="error-banner" role="alert">
          <span>
            <strong>Could not read the settings.</strong> {limits.error}
          </span>
          <button className="btn btn-small" onClick={limits.reload}>
            Retry
          </button>
        </div>
      </div>
    );
  }
  if (!limits.data || !draft) return <div className="empty"><span className="spinner" /></div>;
  const view = limits.data;
  const { saved, problems } = parseDraft(draft);
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(view.saved));
  const invalid = Object.keys(problems).length > 0;

  const save = async () => {
    setSaving(true);
    setError(undefined);
    try {
      await api["settings.saveAgentLimits"]({ saved });
      limits.reload();
      notify({ kind: "success", text: "Saved. Agents' next programs run under these limits." });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="view settings scroll">
      <header className="view-head">
        <h1>Settings</h1>
      </header>
      <section className="settings-section" aria-labelledby="agent-limits-title">
        <h2 className="section-title" id="agent-limits-title">
          Limits for agents
        </h2>
        <p className="muted">
          Every program an agent runs through MCP (here, in <code>workbench serve</code> or <code>workbench mcp</code>) runs under these limits, from its next
          call on. Leave a field blank for the default. Each API's call timeout and response size are in its own settings.
        </p>
        <form
          className="settings-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!invalid) void save();
          }}
        >
          <table className="grid settings-limits">
            <thead>
              <tr>
                <th scope="col">Limit</th>
                <th scope="col">Value</th>
                <th scope="col">In effect</th>
              </tr>
            </thead>
            <tbody>
              {AGENT_LIMIT_KEYS.map((key) => {
                const bound = AGENT_LIMIT_BOUNDS[key];
                const text = LABELS[key];
                const overridden = view.overrides[key];
                const id = `limit-${key}`;
                return (
                  <tr key={key}>
                    <td>
                      <label htmlFor={id} className="settings-label">
                        {text.label}
                      </label>
                      <div className="field-hint">{text.hint}</div>
                    </td>
                    <td>
                      <div className="settings-value">
                        <input
                          id={id}
                          className="input settings-input"
                          inputMode="numeric"
                          value={draft[key]}
                          placeholder={String(bound.default)}
                          aria-invalid={problems[key] ? true : undefined}
                          aria-describedby={`${id}-range`}
                          onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
                        />
                        <span className="muted">{bound.unit}</span>
                      </div>
                      <div className="field-hint" id={`${id}-range`}>
                        {bound.min.toLocaleString()}–{bound.max.toLocaleString()}, default {bound.default.toLocaleString()}
                      </div>
                      {problems[key] && <div className="field-error">{problems[key]}</div>}
                    </td>
                    <td>
                      <span data-testid={`effective-${key}`}>
                        {view.effective[key].toLocaleString()} {bound.unit}
                      </span>
                      {overridden !== undefined && (
                        <div className="field-hint settings-override">
                          set by <code>{text.flag} {overridden}</code> for this process
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {error && (
            <div className="error-banner" role="alert">
              <span>
                <strong>Not saved.</strong> {error}
              </span>
            </div>
          )}
          <div className="toolbar">
            <button className="btn btn-primary" disabled={saving || !dirty || invalid}>
              Save limits
            </button>
            {dirty && (
              <button type="button" className="btn" onClick={() => setDraft(draftOf(view.saved))}>
                Discard changes
              </button>
            )}
            {Object.keys(view.saved).length > 0 && !dirty && (
              <button type="button" className="btn" onClick={() => setDraft(draftOf({}))}>
                Back to the defaults
              </button>
            )}
            <span className="spacer" />
            <button type="button" className="link-btn" onClick={() => actions.openView("connect")}>
              Connect an agent
            </button>
          </div>
        </form>
      </section>
    </div>
  );
}
