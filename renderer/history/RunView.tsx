/** One run, reopened: its program, calls, logs and result; edit and re-run it, replay it, export it. */
import { useState } from "react";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { useToast } from "../app/toasts.tsx";
import { useWorkbench } from "../app/workbench-context.tsx";
import { formatDuration, formatTime, runStatusTone, sourceLabel } from "../common/format.ts";
import { ProgramListing } from "../common/ProgramListing.tsx";
import { RunDetailPanel } from "../run/RunDetailPanel.tsx";
import { useRunDetail } from "../run/use-run.ts";
import "./RunView.css";

export function RunView({ runId }: { runId: string }) {
  const detail = useRunDetail(runId);
  const api = useWorkbench();
  const actions = useActions();
  const notify = useToast();
  const [busy, setBusy] = useState<string>();
  const [showProgram, setShowProgram] = useState(true);

  if (detail.error) {
    return (
      <div className="empty">
        <h2>Could not open {runId}</h2>
        <p>{detail.error}</p>
        <button className="btn" onClick={detail.reload}>
          Try again
        </button>
      </div>
    );
  }
  if (detail.data === null) {
    return (
      <div className="empty">
        <h2>No run {runId}</h2>
        <p>It is not in the store. It may have been removed with its data directory.</p>
      </div>
    );
  }
  if (!detail.data) {
    return (
      <div className="empty">
        <span className="spinner" />
      </div>
    );
  }
  const { run } = detail.data;
  const live = run.status === "running" || run.status === "pending";

  const replay = async (fresh: boolean) => {
    setBusy(fresh ? "again" : "replay");
    try {
      const envelope = await api["runs.replay"]({ id: run.id, ...(fresh ? { fresh: true } : {}) });
      actions.showInConsole(envelope.run);
      notify({
        kind: envelope.status === "failed" ? "error" : "success",
        text: `${fresh ? "Ran again" : "Replayed"} as ${envelope.run}: ${envelope.status}${envelope.error ? ` (${envelope.error.reason})` : ""}.`,
        action: { label: "Open", run: () => actions.openRun(envelope.run) },
      });
    } catch (err) {
      notify({ kind: "error", text: `${fresh ? "Run again" : "Replay"} failed: ${errorMessage(err)}` });
    } finally {
      setBusy(undefined);
    }
  };

  const exportAs = async (format: "json" | "har") => {
    setBusy(format);
    try {
      const file = await api["runs.export"]({ id: run.id, format });
      if (!file) notify({ kind: "error", text: `Nothing to export for ${run.id}.` });
      else download(file.filename, file.content, format === "har" ? "application/json" : "application/json");
    } catch (err) {
      notify({ kind: "error", text: `Export failed: ${errorMessage(err)}` });
    } finally {
      setBusy(undefined);
    }
  };

  const cancel = async () => {
    try {
      const ack = await api["runs.cancel"]({ id: run.id });
      if (!ack.ok) notify({ kind: "error", text: ack.message });
    } catch (err) {
      notify({ kind: "error", text: `Could not cancel: ${errorMessage(err)}` });
    }
  };

  const duration = run.finishedAt ? Date.parse(run.finishedAt) - Date.parse(run.createdAt) : undefined;

  return (
    <div className="runview">
      <header className="runview-head">
        <div className="toolbar">
          <span className={`pill pill-${runStatusTone(run.status)}`}>{run.status}</span>
          <h1 className="runview-id">{run.id}</h1>
          <span className="muted">
            {sourceLabel(run.source)} · {run.tool} · {run.policy === "all" ? "can write" : "read-only"} · {formatTime(run.createdAt)}
            {duration !== undefined ? ` · took ${formatDuration(duration)}` : ""}
          </span>
          {run.parentId && (
            <span className="muted">
              · from{" "}
              <button className="link-btn" onClick={() => actions.openRun(run.parentId!)}>
                {run.parentId}
              </button>
            </span>
          )}
        </div>
        <div className="toolbar">
          {run.tool === "execute" && (
            <>
              <button
                className="btn btn-primary"
                onClick={() => actions.newProgram({ code: run.program, name: `Edit of ${run.id}`, parentRunId: run.id, policy: run.policy })}
                title="Open the program in a new editor tab; running it replays this run with your edits"
              >
                Edit and re-run
              </button>
              <button className="btn" disabled={!!busy || live} onClick={() => replay(false)} title="Run the same program again; calls that match are answered from this run's saved responses, nothing is re-sent">
                Replay
              </button>
              <button className="btn" disabled={!!busy || live} onClick={() => replay(true)} title="Run the same program again and send every call (writes ask again)">
                Run again
              </button>
            </>
          )}
          <button className="btn" disabled={!!busy} onClick={() => exportAs("json")}>
            Export JSON
          </button>
          <button className="btn" disabled={!!busy} onClick={() => exportAs("har")} title="The calls as an HTTP Archive, for browser devtools and proxies">
            Export HAR
          </button>
          {live && (
            <button className="btn btn-danger" onClick={cancel}>
              Cancel run
            </button>
          )}
          {busy && <span className="spinner" />}
        </div>
      </header>
      <section className="runview-program">
        <button className="runview-toggle section-title" aria-expanded={showProgram} onClick={() => setShowProgram(!showProgram)}>
          <span aria-hidden>{showProgram ? "▾" : "▸"}</span> Program
        </button>
        {showProgram && <ProgramListing code={run.program} label={`Program of ${run.id}`} maxHeight={240} />}
      </section>
      <RunDetailPanel detail={detail.data} />
    </div>
  );
}

function download(filename: string, content: string, type: string) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
