/**
 * The approvals inbox: every call waiting for a person, with who asked, the
 * program (its waiting line marked), and the exact request that would be
 * sent. Approve, deny with a message, or approve and always allow; from the
 * keyboard with A, D and Shift+A.
 */
import { useEffect, useRef, useState } from "react";
import type { PendingDecision } from "../../shared/runs.ts";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { useToast } from "../app/toasts.tsx";
import { useChannel, useWorkbench } from "../app/workbench-context.tsx";
import { countdown, formatRelative, methodClass, sourceLabel, splitOperation } from "../common/format.ts";
import { ProgramListing } from "../common/ProgramListing.tsx";
import { linesCalling } from "../common/program-lines.ts";
import { RequestBlock } from "../run/CallTimeline.tsx";
import "./InboxView.css";
import { PlanBlock } from "./PlanBlock.tsx";

export function InboxView({
  decisions,
  error,
  reload,
  visible,
  focusRunId,
}: {
  decisions: PendingDecision[] | undefined;
  error: string | undefined;
  reload: () => void;
  visible: boolean;
  /** The run whose waiting call to put the keyboard on (a notification or a link asked for it). */
  focusRunId?: { runId: string } | undefined;
}) {
  const actions = useActions();
  const list = useRef<HTMLDivElement>(null);
  const now = useNow(1000);

  // Opening the inbox puts the keyboard on the request asked for, else the first one.
  useEffect(() => {
    if (!visible) return;
    requestAnimationFrame(() => {
      const cards = list.current?.querySelectorAll<HTMLElement>(".decision");
      const wanted = focusRunId ? [...(cards ?? [])].find((c) => c.dataset.runId === focusRunId.runId) : undefined;
      (wanted ?? cards?.[0])?.focus();
      wanted?.scrollIntoView({ block: "nearest" });
    });
  }, [visible, decisions?.length, focusRunId]);

  const move = (from: HTMLElement, delta: number) => {
    const cards = [...(list.current?.querySelectorAll<HTMLElement>(".decision") ?? [])];
    cards[Math.max(0, Math.min(cards.length - 1, cards.indexOf(from) + delta))]?.focus();
  };

  return (
    <div className="inbox scroll">
      <header className="view-head">
        <h1>Approvals</h1>
        <span className="muted">{decisions ? `${decisions.length} waiting` : ""}</span>
        <span className="spacer" />
        <span className="muted inbox-keys">
          <kbd>A</kbd> approve <kbd>D</kbd> deny <kbd>Shift+A</kbd> always allow <kbd>J</kbd>/<kbd>K</kbd> move
        </span>
      </header>
      {error && (
        <div className="error-banner" role="alert">
          <span>
            <strong>Could not load the waiting requests.</strong> {error}
          </span>
          <button className="btn btn-small" onClick={reload}>
            Retry
          </button>
        </div>
      )}
      {decisions && decisions.length === 0 && (
        <div className="empty">
          <h2>Nothing waits for you</h2>
          <p>
            When a program (yours, or an agent's) wants to send a write, or a call that carries a vault secret, it stops here until you approve or deny
            it. Reads go straight through.
          </p>
          <button className="btn" onClick={() => actions.openView("connect")}>
            Connect an agent
          </button>
        </div>
      )}
      <div ref={list} className="inbox-list">
        {decisions?.map((d) => (
          <DecisionCard key={`${d.runId}:${d.callIndex}`} decision={d} now={now} onMove={move} />
        ))}
      </div>
    </div>
  );
}

function DecisionCard({ decision, now, onMove }: { decision: PendingDecision; now: number; onMove: (from: HTMLElement, delta: number) => void }) {
  const api = useWorkbench();
  const notify = useToast();
  const actions = useActions();
  const run = useChannel("runs.get", { id: decision.runId });
  const [denying, setDenying] = useState(false);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const card = useRef<HTMLElement>(null);
  const { method, path } = splitOperation(decision.operation);
  const program = run.data?.run.program;
  const calling = decision.plan ? [...new Map(decision.plan.writes.map((w) => [w.operation, w.operationId])).entries()] : [[decision.operation, decision.operationId] as const];
  const marked = program ? [...new Set(calling.flatMap(([operation, operationId]) => linesCalling(program, operationId, operation)))].sort((a, b) => a - b) : [];
  const expired = decision.expiresAt ? Date.parse(decision.expiresAt) <= now : false;
  const titleId = `decision-${decision.runId}-${decision.callIndex}`;

  const plan = decision.plan;
  const [firstWrites, setFirstWrites] = useState(plan ? Math.max(1, plan.writes.length - 1) : 1);
  const decide = async (kind: "approve" | "deny" | "always", writes?: number) => {
    setBusy(true);
    try {
      const ack = await api["decisions.decide"]({ runId: decision.runId, decision: kind, ...(kind === "deny" && message.trim() ? { message: message.trim() } : {}), ...(writes !== undefined ? { writes } : {}) });
      if (!ack.ok) notify({ kind: "error", text: `Not recorded: ${ack.message}` });
      else
        notify({
          kind: "success",
          text: plan
            ? kind === "deny"
              ? `Denied the plan. The program receives CallDenied at its first write.`
              : `Approved ${writes !== undefined && writes < plan.writes.length ? `the first ${writes} of ${plan.writes.length} writes` : `the plan of ${plan.writes.length} writes`}; the run applies it.`
            : kind === "deny"
              ? `Denied ${decision.operation}. The program receives CallDenied.`
              : kind === "always"
                ? `Approved; ${decision.operationId ?? decision.operation} on ${decision.api} is now always allowed.`
                : `Approved ${decision.operation}; the run continues.`,
          action: { label: "Show run", run: () => actions.showInConsole(decision.runId) },
        });
    } catch (err) {
      notify({ kind: "error", text: `The decision did not reach the host: ${errorMessage(err)}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <article
      ref={card}
      className="decision"
      data-run-id={decision.runId}
      tabIndex={0}
      aria-labelledby={titleId}
      aria-keyshortcuts="A D Shift+A J K"
      onKeyDown={(e) => {
        if (e.target !== e.currentTarget || busy) return;
        if (e.key === "a" && !e.shiftKey) void decide("approve");
        else if (e.key === "A" && e.shiftKey && !plan) void decide("always");
        else if (e.key === "d" || e.key === "D") setDenying(true);
        else if (e.key === "j" || e.key === "ArrowDown") onMove(e.currentTarget, 1);
        else if (e.key === "k" || e.key === "ArrowUp") onMove(e.currentTarget, -1);
        else return;
        e.preventDefault();
      }}
    >
      <header className="decision-head">
        {plan ? (
          <h2 id={titleId} className="decision-title">
            Plan: {plan.writes.length} write{plan.writes.length === 1 ? "" : "s"} <span className="muted">to</span> {[...new Set(plan.writes.map((w) => w.api))].join(", ")}
          </h2>
        ) : (
          <>
            <span className={methodClass(method)}>{method}</span>
            <h2 id={titleId} className="decision-title">
              <code>{path}</code> <span className="muted">on</span> {decision.api}
              {decision.operationId && <span className="muted decision-opid"> · {decision.operationId}</span>}
            </h2>
          </>
        )}
        <span className="spacer" />
        {decision.expiresAt && (
          <span className={`pill ${expired ? "pill-danger" : "pill-warn"}`} title={`Expires at ${new Date(decision.expiresAt).toLocaleString()}`}>
            {expired ? "expired" : `expires in ${countdown(decision.expiresAt, now)}`}
          </span>
        )}
      </header>
      <p className="decision-who">
        Asked by <strong>{sourceLabel(decision.requestedBy)}</strong> {formatRelative(decision.requestedAt, now)} · call #{decision.callIndex} of run{" "}
        <button className="link-btn" onClick={() => actions.openRun(decision.runId)}>
          {decision.runId}
        </button>
      </p>
      {decision.changes?.length ? (
        <div className="decision-changes" role="note">
          <strong>Asked again:</strong> you approved this call before, and the request changed since. Nothing was sent.
          <ul>
            {decision.changes.map((change) => (
              <li key={change}>{change}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="decision-body">
        <div className="decision-request">{plan ? <PlanBlock plan={plan} /> : <RequestBlock request={decision.request} title="Request that would be sent" />}</div>
        <div className="decision-program">
          <h3 className="section-title">
            Program{marked.length ? <span className="muted"> · waits at line {marked.join(", ")}</span> : null}
          </h3>
          {program !== undefined ? <ProgramListing code={program} marked={marked} label="Program of the waiting run" /> : run.error ? <p className="field-error">{run.error}</p> : <span className="spinner" />}
        </div>
      </div>
      {denying ? (
        <form
          className="decision-deny"
          onSubmit={(e) => {
            e.preventDefault();
            void decide("deny");
          }}
        >
          <label className="field">
            <span className="field-label">Message for the program (optional; it receives it in CallDenied)</span>
            <textarea
              className="textarea"
              rows={2}
              autoFocus
              value={message}
              maxLength={2000}
              onChange={(e) => setMessage(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  void decide("deny");
                } else if (e.key === "Escape") {
                  e.preventDefault();
                  setDenying(false);
                  card.current?.focus();
                }
              }}
            />
          </label>
          <div className="toolbar">
            <button type="submit" className="btn btn-danger" disabled={busy}>
              Deny
            </button>
            <button type="button" className="btn" onClick={() => setDenying(false)}>
              Back
            </button>
            <span className="muted">Enter denies, Shift+Enter adds a line, Escape goes back.</span>
          </div>
        </form>
      ) : (
        <footer className="toolbar decision-actions">
          <button className="btn btn-ok" disabled={busy || expired} onClick={() => decide("approve")}>
            {plan ? `Approve all ${plan.writes.length} writes` : "Approve"} <kbd>A</kbd>
          </button>
          <button className="btn btn-danger" disabled={busy || expired} onClick={() => setDenying(true)}>
            Deny… <kbd>D</kbd>
          </button>
          {plan ? (
            plan.writes.length > 1 && (
              <span className="plan-first">
                <button className="btn" disabled={busy || expired} onClick={() => decide("approve", firstWrites)} title="Later writes then ask one by one">
                  Approve the first
                </button>
                <input
                  className="input plan-first-count"
                  type="number"
                  min={1}
                  max={plan.writes.length}
                  value={firstWrites}
                  aria-label="How many writes to approve"
                  onChange={(e) => setFirstWrites(Math.max(1, Math.min(plan.writes.length, Number(e.target.value) || 1)))}
                />
                <span className="muted">of {plan.writes.length}</span>
              </span>
            )
          ) : (
            <button className="btn" disabled={busy || expired} onClick={() => decide("always")} title={`Later calls to ${decision.operationId ?? decision.operation} on ${decision.api} pass without asking (rules can be removed in the API's settings)`}>
              Approve and always allow <kbd>Shift+A</kbd>
            </button>
          )}
        </footer>
      )}
    </article>
  );
}

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}
