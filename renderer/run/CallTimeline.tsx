/**
 * The calls a run made, as a timeline: one row per call (method, path,
 * status, duration, decision) with a bar placing it in time, each opening to
 * the exact request and response as the host recorded them (redacted).
 */
import { useState } from "react";
import type { EnvelopeCall, RunStatus } from "../../shared/envelope.ts";
import type { JsonValue } from "../../shared/json.ts";
import { callState } from "../../shared/run-states.ts";
import type { CallRecord, RecordedRequest, RecordedResponse } from "../../shared/runs.ts";
import { CopyButton } from "../common/CopyButton.tsx";
import { JsonTree, Marked } from "../common/JsonTree.tsx";
import { callStatusTone, formatDuration, methodClass, prettyBody, splitOperation } from "../common/format.ts";
import { useActions } from "../app/actions.ts";
import { toCurl } from "./curl.ts";
import "./CallTimeline.css";

const DECISION_TEXT: Record<string, string> = {
  approved: "approved",
  denied: "denied",
  allowed_by_rule: "allowed by rule",
  not_needed: "",
  expired: "expired",
};

/** `runStatus`: where the run stands, which decides what a call's state means (shared/run-states.ts). */
export function CallTimeline({ calls, envelopeCalls, runStatus, waitingCall }: { calls: CallRecord[]; envelopeCalls?: EnvelopeCall[]; runStatus: RunStatus; waitingCall?: number }) {
  const [open, setOpen] = useState<number | null>(null);
  if (!calls.length) return <p className="muted timeline-empty">No calls.</p>;
  const starts = calls.map((c) => Date.parse(c.startedAt)).filter(Number.isFinite);
  const ends = calls.map((c) => (c.finishedAt ? Date.parse(c.finishedAt) : Date.parse(c.startedAt) + (c.durationMs ?? 0))).filter(Number.isFinite);
  const t0 = Math.min(...starts);
  const span = Math.max(1, Math.max(...ends) - t0);
  return (
    <ol className="timeline" aria-label="Calls">
      {calls.map((call) => {
        const { method, path } = splitOperation(call.operation);
        const start = Date.parse(call.startedAt) - t0;
        const width = Math.max(0.6, ((call.durationMs ?? 0) / span) * 100);
        const env = envelopeCalls?.find((e) => e.index === call.index);
        const isOpen = open === call.index;
        const state = callState(call, runStatus, waitingCall);
        const decision = call.decision && DECISION_TEXT[call.decision] !== state.label ? DECISION_TEXT[call.decision] : "";
        return (
          <li key={call.index} className={`call ${isOpen ? "call-open" : ""}`}>
            <button className="call-row" aria-expanded={isOpen} onClick={() => setOpen(isOpen ? null : call.index)}>
              <span className="call-index">{call.index}</span>
              <span className={methodClass(method)}>{method}</span>
              <span className="call-path" title={call.request?.url ?? call.operation}>
                <span className="muted">{call.api} </span>
                {call.request ? pathOf(call.request.url) : path}
              </span>
              <span className="call-tags">
                <span className={`pill pill-${state.tone}`} title={state.note}>
                  {state.label}
                </span>
                {call.endedAfterRun && (
                  <span className="pill pill-warn" title={state.note}>
                    after the run ended
                  </span>
                )}
                {decision && <span className={`pill ${call.decision === "denied" || call.decision === "expired" ? "pill-danger" : "pill-accent"}`}>{decision}</span>}
                {env?.replayed && (
                  <span className="pill" title="Answered from the saved run, not sent again">
                    replayed
                  </span>
                )}
              </span>
              <span className="call-duration">{formatDuration(call.durationMs)}</span>
              <span className="call-bar" aria-hidden>
                <span style={{ left: `${(start / span) * 100}%`, width: `${Math.min(width, 100 - (start / span) * 100)}%` }} />
              </span>
            </button>
            {isOpen && <CallDetail call={call} note={state.note} />}
          </li>
        );
      })}
    </ol>
  );
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** A call refused for want of a person's sign-in (the proxy's `{reason: "sign_in_required"}`). */
function signInRequired(details: JsonValue | undefined): boolean {
  return typeof details === "object" && details !== null && !Array.isArray(details) && details.reason === "sign_in_required";
}

function CallDetail({ call, note }: { call: CallRecord; note: string | undefined }) {
  const actions = useActions();
  return (
    <div className="call-detail">
      {call.error && (
        <div className="error-banner">
          <strong>{call.error.name}</strong> <Marked text={call.error.message} />
          {signInRequired(call.error.details) && (
            <button className="btn btn-small" onClick={() => actions.openApiSettings(call.api)}>
              Sign in to {call.api}…
            </button>
          )}
        </div>
      )}
      {note && (call.status === "unknown" || call.status === "in_flight" || call.endedAfterRun || call.status === "pending") && <div className="error-banner">{note[0]!.toUpperCase() + note.slice(1)}.</div>}
      {call.denyMessage && (
        <p>
          <span className="muted">Denied with the message: </span>
          {call.denyMessage}
        </p>
      )}
      <div className="call-meta muted">
        {call.operationId && <span>operation {call.operationId}</span>}
        {call.idempotencyKey && <span>idempotency key {call.idempotencyKey}</span>}
        {call.decidedBy && <span>decided by {call.decidedBy}</span>}
      </div>
      {call.request ? <RequestBlock request={call.request} /> : <ArgumentsBlock args={call.arguments} />}
      {call.response && <ResponseBlock response={call.response} />}
    </div>
  );
}

export function RequestBlock({ request, title = "Request" }: { request: RecordedRequest; title?: string }) {
  return (
    <section className="http-block">
      <header className="http-block-head">
        <h3 className="section-title">{title}</h3>
        <span className="spacer" />
        <CopyButton text={() => toCurl(request)} label="Copy as curl" title="Secrets stay as their markers and vault references" />
      </header>
      <div className="http-line">
        <span className={methodClass(request.method)}>{request.method.toUpperCase()}</span> <code className="http-url">{request.url}</code>
      </div>
      <Headers headers={request.headers} />
      <Body body={request.body} encoding={request.bodyEncoding} truncated={request.truncated} bytes={request.bodyBytes} />
    </section>
  );
}

function ResponseBlock({ response }: { response: RecordedResponse }) {
  return (
    <section className="http-block">
      <header className="http-block-head">
        <h3 className="section-title">Response</h3>
        <span className={`pill pill-${callStatusTone(response.status)}`}>{response.status}</span>
        <span className="spacer" />
        {response.body !== undefined && <CopyButton text={response.body} label="Copy body" />}
      </header>
      <Headers headers={response.headers} />
      <Body body={response.body} encoding={response.bodyEncoding} truncated={response.truncated} bytes={response.bodyBytes} />
    </section>
  );
}

function ArgumentsBlock({ args }: { args: JsonValue }) {
  return (
    <section className="http-block">
      <h3 className="section-title">Arguments (not sent)</h3>
      <JsonTree value={args} openDepth={2} />
    </section>
  );
}

function Headers({ headers }: { headers: Record<string, string> }) {
  const entries = Object.entries(headers);
  if (!entries.length) return null;
  return (
    <details className="http-headers" open={entries.length <= 6}>
      <summary className="muted">{entries.length} headers</summary>
      <table>
        <tbody>
          {entries.map(([k, v]) => (
            <tr key={k}>
              <th>{k}</th>
              <td>
                <Marked text={v} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

function Body({ body, encoding, truncated, bytes }: { body?: string; encoding?: "utf8" | "base64"; truncated?: boolean; bytes?: number }) {
  if (body === undefined || body === "") return null;
  if (encoding === "base64") return <p className="muted">Binary body, {bytes ?? "?"} bytes (not shown).</p>;
  let json: JsonValue | undefined;
  const t = body.trim();
  if (!truncated && (t.startsWith("{") || t.startsWith("["))) {
    try {
      json = JSON.parse(t) as JsonValue;
    } catch {
      json = undefined;
    }
  }
  return (
    <div className="http-body">
      {truncated && <p className="muted">Stored body cut at {body.length.toLocaleString()} of {bytes?.toLocaleString() ?? "?"} bytes.</p>}
      {json !== undefined ? <JsonTree value={json} openDepth={2} copy={false} /> : <pre><Marked text={prettyBody(body)} /></pre>}
    </div>
  );
}
