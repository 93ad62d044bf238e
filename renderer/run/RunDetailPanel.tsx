/** A run's outcome: why it stopped (or what it waits for), its calls, its result and its logs. */
import { useState } from "react";
import type { RunDetail } from "../../shared/contract.ts";
import type { Envelope } from "../../shared/envelope.ts";
import { runState } from "../../shared/run-states.ts";
import { useActions } from "../app/actions.ts";
import { JsonTree, Marked } from "../common/JsonTree.tsx";
import { CallTimeline } from "./CallTimeline.tsx";
import "./RunDetailPanel.css";

/** Uncaught errors from a call say more than the generic "Error". */
const CALL_ERROR_HELP: Record<string, string> = {
  CallDenied: "A person denied a call, and the program did not catch the CallDenied error.",
  CallRejected: "The host refused a call before sending it (validation or policy), and the program did not catch it.",
  CallFailed: "A call was sent but got no usable answer, and the program did not catch it.",
  VaultDenied: "The program sent a vault reference to an API its item does not allow; nothing was sent.",
};

const REASON_HELP: Record<string, string> = {
  Error: "The program threw an error.",
  Timeout: "The program ran past its time limit.",
  Memory: "The program used more memory than a run may.",
  OutputTooLarge: "The program's result or logs were too large.",
  Deadlock: "The program waited on a promise that nothing would ever settle.",
  CallLimit: "The program made more calls than a run may.",
  ReplayMismatch: "On replay the program asked for a different call than the one recorded or approved; nothing was sent.",
  Cancelled: "The run was cancelled (by a person, or a decision expired).",
  Unavailable: "The host could not run the program.",
};

export function RunDetailPanel({ detail, envelope: fresh, where = "run" }: { detail: RunDetail; envelope?: Envelope; where?: string }) {
  const actions = useActions();
  const envelope = detail.run.envelope ?? fresh;
  const [tab, setTab] = useState<"result" | "logs">("result");
  const logs = detail.run.logs.length ? detail.run.logs : (envelope?.logs ?? []);
  const error = envelope?.error;
  const pending = detail.run.status === "pending" ? (detail.pending ?? undefined) : undefined;
  const state = runState(detail.run, pending);
  const idPrefix = `rd-${detail.run.id}`;

  return (
    <div className="run-detail">
      {detail.run.status === "failed" && (
        <div className="error-banner run-banner" role="alert">
          <div>
            <strong>{error?.reason ?? detail.run.failureReason ?? "Failed"}</strong>
            {error && error.name !== error.reason && <> · {error.name}</>}: <Marked text={error?.message ?? ""} />
            <div className="muted">{CALL_ERROR_HELP[error?.name ?? ""] ?? REASON_HELP[error?.reason ?? detail.run.failureReason ?? ""] ?? ""}</div>
          </div>
        </div>
      )}
      {detail.run.status === "interrupted" && (
        <div className="error-banner run-banner">
          <strong>Interrupted</strong> The workbench stopped while this run was running. {state.detail}
        </div>
      )}
      {detail.run.status === "cancelled" && (
        <div className="run-pending run-banner" role="status">
          <span>
            <strong>Cancelled</strong> <Marked text={error?.message ?? ""} />
          </span>
        </div>
      )}
      {detail.run.status === "pending" && !pending && (
        <div className="run-pending run-banner" role="status">
          <span>
            {state.headline[0]!.toUpperCase() + state.headline.slice(1)}. {state.detail}
          </span>
        </div>
      )}
      {pending && (
        <div className="run-pending run-banner" role="status">
          <span>
            Waiting for approval of call #{pending.callIndex}: <code>{pending.operation}</code> on {pending.api}
          </span>
          <button className="btn btn-small btn-primary" onClick={() => actions.openView("inbox")}>
            Review in the inbox
          </button>
        </div>
      )}
      <div className="run-columns">
        <section className="run-calls" aria-label={`Calls of the ${where}`}>
          <h2 className="section-title run-col-title">Calls ({detail.calls.length})</h2>
          <div className="run-scroll">
            <CallTimeline calls={detail.calls} envelopeCalls={envelope?.calls} runStatus={detail.run.status} {...(pending ? { waitingCall: pending.callIndex } : {})} />
          </div>
        </section>
        <section className="run-output" aria-label={`Result and logs of the ${where}`}>
          <div className="run-tabs" role="tablist" aria-label="Output">
            <button role="tab" id={`${idPrefix}-result`} aria-controls={`${idPrefix}-result-panel`} aria-selected={tab === "result"} onClick={() => setTab("result")}>
              Result
            </button>
            <button role="tab" id={`${idPrefix}-logs`} aria-controls={`${idPrefix}-logs-panel`} aria-selected={tab === "logs"} onClick={() => setTab("logs")}>
              Logs ({logs.length})
            </button>
          </div>
          <div className="run-scroll run-output-body" role="tabpanel" id={`${idPrefix}-${tab}-panel`} aria-labelledby={`${idPrefix}-${tab}`} tabIndex={0}>
            {tab === "result" ? (
              <>
                {envelope?.truncated && <p className="muted run-truncated">{envelope.truncated}</p>}
                {envelope && "result" in envelope && envelope.result !== undefined ? (
                  <JsonTree value={envelope.result} label="Result" />
                ) : (
                  <p className="muted">{detail.run.status === "completed" ? "The program returned nothing." : detail.run.status === "running" ? "Running…" : "No result."}</p>
                )}
              </>
            ) : logs.length ? (
              <ol className="run-logs">
                {logs.map((line, i) => (
                  <li key={i}>
                    <Marked text={line} />
                  </li>
                ))}
              </ol>
            ) : (
              <p className="muted">No logs. Lines from console.log appear here.</p>
            )}
          </div>
        </section>
      </div>
    </div>
  );
}
