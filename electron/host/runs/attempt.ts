/**
 * One pass of a program through the sandbox, and every call it makes: replayed
 * from the saved record, refused, stopped for a person, or sent live. Each
 * call is recorded before it is sent and finished after, so the store always
 * knows what may have reached an upstream. When a call must wait for a person
 * (or replay finds a mismatch), the attempt stops taking new calls, lets the
 * calls already on the wire finish and be recorded, then ends the run there.
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../../shared/json.ts";
import type { CodeRun, PendingDecision } from "../../../shared/runs.ts";
import type { Decision } from "../../../shared/envelope.ts";
import { canonicalJson, prepareCall, recordRequest, sendPrepared, type GuestCall, type PreparedCall, type ProxyDeps } from "../proxy/pipeline.ts";
import { isWrite } from "../proxy/policy.ts";
import { previewCredential } from "../proxy/attach.ts";
import { schemeFor } from "../proxy/credentials.ts";
import { CallFailure } from "../proxy/types.ts";
import type { HostCallAnswer } from "../sandbox/types.ts";
import { parseCallName } from "../tools/execute-prelude.ts";
import type { Redactor } from "../vault/redact.ts";
import type { ReplayPlan } from "./replay.ts";
import type { CodeRunStore } from "./store.ts";

export type AttemptStop =
  | { kind: "pending"; index: number }
  | { kind: "mismatch"; message: string }
  | { kind: "cancelled"; message: string };

export interface AttemptOptions {
  run: CodeRun;
  store: CodeRunStore;
  proxy: ProxyDeps;
  plan: ReplayPlan;
  /** Saved answers come from the parent run: record a copy of each in this run. */
  copySaved: boolean;
  /** Writes were approved up front (`--yes`): sent without stopping, recorded as approved by this name. */
  preApprovedBy?: string;
  redactor: Redactor;
  signal: AbortSignal;
  decisionTtlMs: number;
  now: () => number;
  onDecisionRequested: (decision: PendingDecision) => void;
  log: (message: string) => void;
}

/** sha256 of what the program asked for, as it asked: replay compares it call by call. */
export function callSignature(guest: GuestCall): string {
  return createHash("sha256").update(canonicalJson({ api: guest.api, op: guest.op, args: guest.args })).digest("hex");
}

export class Attempt {
  readonly #o: AttemptOptions;
  /** Host notes for the run's logs (validation warnings). */
  readonly notes: string[] = [];
  #stop: AttemptStop | undefined;
  #inFlight = 0;
  #releaseStop: (() => void) | undefined;
  readonly #stopAnswer: Promise<HostCallAnswer>;

  constructor(options: AttemptOptions) {
    this.#o = options;
    this.#stopAnswer = new Promise((resolve) => {
      this.#releaseStop = () => resolve({ suspend: true });
    });
  }

  get stop(): AttemptStop | undefined {
    return this.#stop;
  }

  /** Ends the attempt at the next opportunity: once nothing is on the wire. */
  halt(stop: AttemptStop): Promise<HostCallAnswer> {
    this.#stop ??= stop;
    this.#maybeRelease();
    return this.#stopAnswer;
  }

  #maybeRelease(): void {
    if (this.#stop && this.#inFlight === 0) this.#releaseStop?.();
  }

  async onCall(call: { index: number; name: string; args: JsonValue }): Promise<HostCallAnswer> {
    if (this.#stop) return this.#stopAnswer;
    const parsed = parseCallName(call.name);
    if (!parsed) return { ok: false, error: { name: "CallRejected", message: `unknown host function ${call.name}` } };
    const guest: GuestCall = { ...parsed, args: call.args };
    const signature = callSignature(guest);
    const step = this.#o.plan.step(call.index, signature, () => `apis.${guest.api}.${guest.op}(...)`);
    switch (step.kind) {
      case "mismatch":
        return this.halt({ kind: "mismatch", message: step.message });
      case "saved": {
        const answer = await step.answer;
        if (this.#o.copySaved) this.#copySaved(call.index);
        return this.#stop ? this.#stopAnswer : answer;
      }
      case "approved":
        return this.#live(call.index, guest, signature, step.record.idempotencyKey, step.record.request);
      case "live":
        return this.#live(call.index, guest, signature);
    }
  }

  /** Records in this run the parent's call that was just replayed. */
  #copySaved(index: number): void {
    const parentCall = this.#o.store.getCall(this.#o.run.parentId!, index);
    if (!parentCall) return;
    const { completionOrder: _order, startedAt: _s, finishedAt: _f, ...rest } = parentCall;
    this.#o.store.recordCall({ ...rest, runId: this.#o.run.id, replayedFrom: parentCall.replayedFrom ?? parentCall.runId });
  }

  async #live(index: number, guest: GuestCall, signature: string, approvedKey?: string, approvedRequest?: { method: string; url: string }): Promise<HostCallAnswer> {
    const { store, run, redactor } = this.#o;
    const approved = approvedRequest !== undefined;
    const base = { runId: run.id, index, api: guest.api, arguments: redactor.redactJson(guest.args), argumentsHash: signature };
    let prepared: PreparedCall;
    try {
      prepared = await prepareCall(this.#o.proxy, guest, {
        policy: run.policy,
        preApproved: approved || this.#o.preApprovedBy !== undefined,
        allowedByRule: (api, operationId) => store.isAllowed(api, operationId),
        ...(approvedKey ? { idempotencyKey: approvedKey } : {}),
      });
    } catch (err) {
      const failure = asCallFailure(err, this.#o.log);
      if (this.#stop) return this.#stopAnswer;
      const op = failure.operation;
      store.recordCall({
        ...base,
        operation: op ? `${op.method.toUpperCase()} ${op.path}` : describeGuestCall(guest),
        ...(op ? { operationId: op.id } : {}),
        status: "rejected",
        error: { name: failure.callError.name, message: failure.message },
      });
      return { ok: false, error: { name: failure.callError.name, message: failure.message } };
    }
    if (this.#stop) return this.#stopAnswer;
    for (const warning of prepared.warnings) this.notes.push(`workbench: call ${index}: ${warning}`);
    const operation = `${prepared.operation.method.toUpperCase()} ${prepared.operation.path}`;
    // What a person sees and approves: the exact request, the credential shown by reference.
    const scheme = schemeFor(prepared.target, prepared.operation);
    const shown = recordRequest(previewCredential(prepared.request, scheme, prepared.target.config.auth?.credential, prepared.target.name), redactor);
    const described = { ...base, operation, operationId: prepared.operation.id, request: shown };

    // The origin may differ (the demo server gets a new port per process); what was approved is the method, path and query.
    if (approved && (shown.method !== approvedRequest.method || pathAndQuery(shown.url) !== pathAndQuery(approvedRequest.url))) {
      return this.halt({ kind: "mismatch", message: `call ${index} would now send ${shown.method} ${pathAndQuery(shown.url)}, but a person approved ${approvedRequest.method} ${pathAndQuery(approvedRequest.url)}; nothing was sent` });
    }

    if (prepared.verdict.kind === "decide" && !approved && this.#o.preApprovedBy === undefined) {
      const now = this.#o.now();
      store.recordCall({ ...described, status: "pending", ...(prepared.request.idempotencyKey ? { idempotencyKey: prepared.request.idempotencyKey } : {}) });
      const decision: PendingDecision = {
        runId: run.id,
        callIndex: index,
        api: guest.api,
        operation,
        operationId: prepared.operation.id,
        request: shown,
        arguments: base.arguments,
        argumentsHash: signature,
        requestedBy: run.source,
        requestedAt: new Date(now).toISOString(),
        expiresAt: new Date(now + this.#o.decisionTtlMs).toISOString(),
      };
      store.putPendingDecision(decision);
      this.#o.onDecisionRequested(decision);
      return this.halt({ kind: "pending", index });
    }

    const needsPerson = isWrite(prepared.operation) || prepared.references.length > 0;
    const decision: Decision = approved
      ? "approved"
      : !needsPerson
        ? "not_needed"
        : prepared.references.length === 0 && store.isAllowed(guest.api, prepared.operation.id)
          ? "allowed_by_rule"
          : "approved";
    const key = prepared.request.idempotencyKey ? { idempotencyKey: prepared.request.idempotencyKey } : {};
    if (approved) store.finishCall(run.id, index, { status: "in_flight", request: shown, ...key });
    else {
      const by = decision === "approved" && this.#o.preApprovedBy ? { decidedBy: this.#o.preApprovedBy!, decidedAt: new Date(this.#o.now()).toISOString() } : {};
      store.recordCall({ ...described, status: "in_flight", decision, ...by, ...key });
    }

    this.#inFlight++;
    try {
      const sent = await sendPrepared(this.#o.proxy, prepared, redactor, this.#o.signal);
      store.finishCall(run.id, index, {
        status: sent.response.status,
        request: sent.recordedRequest,
        response: sent.recordedResponse,
        result: sent.response as unknown as JsonValue,
        durationMs: sent.durationMs,
      });
      return { ok: true, value: sent.response as unknown as JsonValue };
    } catch (err) {
      const failure = asCallFailure(err, this.#o.log);
      // Cancelled mid-flight: the outcome is unknown; the record stays in_flight.
      if (!this.#o.signal.aborted) {
        store.finishCall(run.id, index, { status: failure.callError.name === "CallFailed" ? "failed" : "rejected", error: { name: failure.callError.name, message: failure.message } });
      }
      return { ok: false, error: { name: failure.callError.name, message: failure.message } };
    } finally {
      this.#inFlight--;
      this.#maybeRelease();
    }
  }
}

function pathAndQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** How a call that never matched an operation is named in the log: `POST /pets` or `apis.x.op`. */
function describeGuestCall(guest: GuestCall): string {
  const args = guest.args as { method?: unknown; path?: unknown } | null;
  if (guest.op === "request" && args && typeof args === "object" && typeof args.path === "string") {
    return `${typeof args.method === "string" ? args.method.toUpperCase() : "GET"} ${args.path.split("?")[0]}`;
  }
  return `apis.${guest.api}.${guest.op}`;
}

function asCallFailure(err: unknown, log: (message: string) => void): CallFailure {
  if (err instanceof CallFailure) return err;
  log(`call failed inside the host: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return new CallFailure("CallFailed", "the workbench could not process this call (an internal error, logged on the host)");
}
