/** The console under the editor: the run just started (or picked from the history), live. */
import type { Envelope } from "../../shared/envelope.ts";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { useToast } from "../app/toasts.tsx";
import { useWorkbench } from "../app/workbench-context.tsx";
import { formatDuration, runStatusTone, sourceLabel } from "../common/format.ts";
import { CopyButton } from "../common/CopyButton.tsx";
import { RunDetailPanel } from "./RunDetailPanel.tsx";
import { useRunDetail } from "./use-run.ts";
import "./RunConsole.css";

export interface ConsoleState {
  runId?: string;
  envelope?: Envelope;
  running: boolean;
  error?: string;
  programId?: string;
  startedAt?: number;
}

export function RunConsole({ state }: { state: ConsoleState }) {
  const detail = useRunDetail(state.runId);
  const actions = useActions();
  const api = useWorkbench();
  const notify = useToast();
  const run = detail.data?.run;
  const live = run && (run.status === "running" || run.status === "pending");
  const duration = run ? (run.finishedAt ? Date.parse(run.finishedAt) : Date.now()) - Date.parse(run.createdAt) : undefined;

  const cancel = async () => {
    if (!run) return;
    try {
      const ack = await api["runs.cancel"]({ id: run.id });
      if (!ack.ok) notify({ kind: "error", text: ack.message });
    } catch (err) {
      notify({ kind: "error", text: `Could not cancel: ${errorMessage(err)}` });
    }
  };

  return (
    <div className="console">
      <header className="console-head">
        <h2 className="section-title">Run</h2>
        {state.running && !run && (
          <span className="console-status">
            <span className="spinner" /> Starting…
          </span>
        )}
        {run && (
          <>
            <span className={`pill pill-${runStatusTone(run.status)}`} data-testid="run-status">
              {run.status === "running" && <span className="spinner console-spinner" />}
              {run.status}
            </span>
            <code className="console-id">{run.id}</code>
            <span className="muted console-meta">
              {run.policy === "all" ? "can write" : "read-only"} · {sourceLabel(run.source)}
              {duration !== undefined && !live ? ` · ${formatDuration(duration)}` : ""}
            </span>
          </>
        )}
        <span className="spacer" />
        {run && live && (
          <button className="btn btn-small" onClick={cancel}>
            Cancel run
          </button>
        )}
        {run?.envelope && <CopyButton text={() => JSON.stringify(run.envelope, null, 2)} label="Copy envelope" title="The JSON an agent would receive" />}
        {run && (
          <button className="btn btn-small" onClick={() => actions.openRun(run.id)}>
            Open run
          </button>
        )}
      </header>
      {state.error && (
        <div className="error-banner console-error" role="alert">
          <span>
            <strong>The run did not start.</strong> {state.error}
          </span>
        </div>
      )}
      {detail.error && !state.error && (
        <div className="error-banner console-error" role="alert">
          <span>
            <strong>Could not load the run.</strong> {detail.error}
          </span>
        </div>
      )}
      {detail.data ? (
        <RunDetailPanel detail={detail.data} envelope={state.envelope} where="console" />
      ) : detail.data === null ? (
        <p className="muted console-empty">Run {state.runId} is not in the store (it may have been removed).</p>
      ) : (
        !state.running &&
        !state.error && (
          <p className="muted console-empty">
            Run a program (<kbd>Ctrl+Enter</kbd> in the editor) to see its calls, logs and result here. Past runs are under <strong>Runs</strong>.
          </p>
        )
      )}
    </div>
  );
}
