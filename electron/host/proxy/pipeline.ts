/**
 * One call's whole path through the host, in one place. Each step is a
 * function in its own file:
 *
 *   0. parse the program's arguments        call-args.ts
 *   1. match an operation                   match.ts
 *   2. validate against the spec            validate.ts (spec patterns on a linear-time engine)
 *   3. policy: may it leave now?            policy.ts
 *   4. vault: may this API receive the references it carries?   ../vault/references.ts
 *   5. build the exact request; the URL stays inside its operation   build-request.ts, url-guard.ts
 *   6. decide: ask a person, or check that an approval still binds   approval.ts
 *   7. record the call before it is sent (the run's CallLog)
 *   8. substitute vault references, attach the credential            credentials.ts, attach.ts
 *   9. send, one refresh-and-retry on 401                            send.ts
 *  10. read the response, record it, answer the program              response.ts
 *
 * Two exits carry data out, and both redact: the attempt's host-call handler
 * for everything that crosses into the sandbox (results, headers, error
 * messages and details; runs/attempt.ts), and the CallLog for everything
 * stored (the run's RunLog redacts each write).
 * Host error text is built from the request as shown (references unexpanded),
 * never from the one sent.
 */
import type { HttpMethod, Operation } from "../../../shared/artifact.ts";
import type { Decision } from "../../../shared/envelope.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { CallRecord, FirstAttempt, PendingDecision, Plan, RecordedRequest, RecordedResponse, RunPolicy, RunSource } from "../../../shared/runs.ts";
import { reportInternalError } from "../common/host-log.ts";
import { describeChanges, requestFingerprint } from "./approval.ts";
import { attachCredential, previewCredential } from "./attach.ts";
import { buildRequest } from "./build-request.ts";
import { parseBindingForm, parseRequestForm } from "./call-args.ts";
import { credentialSlots, schemeFor, type Credential, type CredentialResolver, type Destination, type ResolveRequest } from "./credentials.ts";
import { editDistance, matchPath, operationById } from "./match.ts";
import { checkPolicy, isWrite, type PolicyVerdict } from "./policy.ts";
import { readResponse, redactEach } from "./response.ts";
import { sendRequest, type RawResponse } from "./send.ts";
import { CallFailure, type ApiTarget, type CallAnswer, type CallEntry, type CallError, type CallLog, type CallRequest, type CallResponse, type OutgoingRequest } from "./types.ts";
import { uncheckedPatterns, validateCall } from "./validate.ts";
import { findReferences, substituteReferences, type VaultReader } from "../vault/references.ts";
import type { Redactor } from "../vault/redact.ts";

export interface ProxyDeps {
  target(api: string): ApiTarget | undefined;
  /** The registered APIs' names, for the answer to a call to one that is not. */
  apiNames?(): string[];
  vault: VaultReader;
  resolver: CredentialResolver;
  /** The host log (redacted by its owner). */
  log?: (message: string) => void;
}

/** What the guest sent: `apis.<api>.<op>(args)`, where op is "request" or an operation id. */
export interface GuestCall {
  api: string;
  op: string;
  args: JsonValue;
  /**
   * Set when the call is refused before it is prepared: why (arguments that
   * could not cross from the sandbox, an API the run used that is gone). It
   * is recorded as rejected, and nothing is sent.
   */
  refused?: string;
}

/** Everything one call needs from the run it belongs to. */
export interface CallContext {
  runId: string;
  policy: RunPolicy;
  source: RunSource;
  log: CallLog;
  redactor: Redactor;
  signal: AbortSignal;
  /** Writes approved up front (`--yes`): sent without stopping, recorded as approved by this name. */
  preApprovedBy?: string;
  decisionTtlMs: number;
  now(): number;
  /** True once the attempt stopped taking calls (another call waits for a person): record and send nothing more. */
  stopped(): boolean;
  /** Set once the call's run has ended (see RunEnded); undefined while it runs. */
  runEnded?(): RunEnded | undefined;
  /** Marks a call as on the wire; the returned function marks it done. */
  onWire(): () => void;
  onDecisionRequested(decision: PendingDecision): void;
  /** A line for the run's logs (validation warnings, unchecked patterns). */
  note(message: string): void;
  /**
   * The run plans its writes. Asked (synchronously) when a call would ask a
   * person: "first" for the call that begins the forecast (recorded as waiting
   * and handed back), "join" for one that raced it (handed back unrecorded, a
   * write of the plan); the attempt forecasts the rest of the program and asks
   * once for the whole plan.
   */
  forecast?(target: ApiTarget): "first" | "join" | undefined;
  /** A plan was approved: may this call, which would ask a person, be sent as one of its writes? */
  planVerdict?(call: PlannedCallCheck): Promise<PlanVerdict>;
}

/** What the plan check sees of a call that would ask a person. */
export interface PlannedCallCheck {
  index: number;
  guest: GuestCall;
  prepared: PreparedCall;
  shown: RecordedRequest;
}

export type PlanVerdict =
  /** Write `write` of the approved plan: sent as approved by the plan's decider. */
  | { kind: "send"; write: number; by: string; at: string }
  /** Beyond the plan, or different from it: asks a person for this write alone, saying how it differs. */
  | { kind: "ask"; changes: string[] };

/**
 * How the run of a call ended, for a call not yet sent at that moment. The
 * program started it, so it still goes (as a `fetch` left unawaited would),
 * unless the run was cancelled or the call needs a person, who can no longer
 * be asked: it is then recorded as not sent, with why.
 */
export interface RunEnded {
  /** "the run completed", "the run was cancelled by cli": how the refusal names it. */
  why: string;
  cancelled: boolean;
}

export interface LiveCall {
  index: number;
  guest: GuestCall;
  /** sha256 of the canonical call (api, op, args): what replay compares. */
  signature: string;
  /** The call's record when a person approved it: it is sent only if its request still fingerprints the same. */
  approved?: CallRecord;
}

export type CallResult =
  /** Not yet redacted: the attempt's host-call handler redacts it as it crosses into the sandbox. */
  | { kind: "answer"; answer: CallAnswer }
  /** Recorded as pending and put to a person; the attempt ends here. */
  | { kind: "wait"; decision: PendingDecision }
  /** The attempt stopped before this call got anywhere: nothing recorded, nothing sent. */
  | { kind: "stopped" }
  /** Planning: a write that needs a person, not sent; `first` is recorded as waiting, and the attempt forecasts from here. */
  | { kind: "forecast"; first: boolean; prepared: PreparedCall; described: CallEntry; shown: RecordedRequest };

export async function runCall(deps: ProxyDeps, ctx: CallContext, live: LiveCall): Promise<CallResult> {
  const { index, guest, signature, approved } = live;
  const entry = { index, api: guest.api, arguments: guest.args, argumentsHash: signature };
  // An approved call already has its record (pending, approved); everything else is recorded afresh.
  const write = (record: CallEntry) => (approved ? ctx.log.finishCall(index, record) : ctx.log.recordCall(record));

  // 0-5. Everything that can be decided without sending.
  let prepared: PreparedCall;
  try {
    if (guest.refused) throw new CallFailure("CallRejected", `${guest.refused}; nothing was sent`);
    prepared = await prepareCall(deps, guest, {
      policy: ctx.policy,
      preApproved: approved !== undefined || ctx.preApprovedBy !== undefined,
      allowedByRule: (api, operationId) => ctx.log.isAllowed(api, operationId),
      ...(approved?.idempotencyKey ? { idempotencyKey: approved.idempotencyKey } : {}),
    });
  } catch (err) {
    const failure = asCallFailure(err, deps);
    if (ctx.stopped()) return { kind: "stopped" };
    const op = failure.operation;
    write({ ...entry, operation: op ? operationName(op) : describeGuestCall(guest), ...(op ? { operationId: op.id } : {}), status: "rejected", error: failure.callError });
    return { kind: "answer", answer: { ok: false, error: failure.callError } };
  }
  if (ctx.stopped()) return { kind: "stopped" };
  for (const warning of prepared.warnings) ctx.note(`workbench: call ${index}: ${warning}`);

  // 6. What a person sees and approves: the exact request, the credential by reference, bound by a fingerprint.
  const shown = showRequest(prepared, deps.resolver);
  const described: CallEntry = { ...entry, operation: operationName(prepared.operation), operationId: prepared.operation.id, request: shown, status: "pending" };
  if (prepared.request.idempotencyKey) described.idempotencyKey = prepared.request.idempotencyKey;
  // Only a call a person decides needs the fingerprint: the one asked now, and the one approved before.
  const asking = prepared.verdict.kind === "decide" && !approved && ctx.preApprovedBy === undefined;
  if (approved || asking) described.requestFingerprint = requestFingerprint(shown, prepared.target);
  const needsPerson = approved ? approved.requestFingerprint !== described.requestFingerprint : asking;
  const refusal = afterRunEnded(ctx, needsPerson);
  if (refusal) {
    write({ ...described, status: "rejected", error: refusal });
    return { kind: "answer", answer: { ok: false, error: refusal } };
  }
  if (approved && approved.requestFingerprint !== described.requestFingerprint) {
    const changes = approved.requestFingerprint && approved.request ? describeChanges(approved.request, shown) : ["the approval was given before approvals were bound to the request shown"];
    ctx.log.replaceCall(described);
    return askPerson(ctx, described, shown, changes);
  }
  // A write of an approved plan is sent as planned, or asks alone; without a plan, planning forecasts, else a person is asked.
  let planned: Extract<PlanVerdict, { kind: "send" }> | undefined;
  if (asking && ctx.planVerdict) {
    const verdict = await ctx.planVerdict({ index, guest, prepared, shown });
    if (ctx.stopped()) return { kind: "stopped" };
    if (verdict.kind === "ask") {
      ctx.log.recordCall(described);
      return askPerson(ctx, described, shown, verdict.changes);
    }
    planned = verdict;
  }
  const role = asking && !planned ? ctx.forecast?.(prepared.target) : undefined;
  if (role) {
    if (role === "first") ctx.log.recordCall(described);
    return { kind: "forecast", first: role === "first", prepared, described, shown };
  } else if (asking && !planned) {
    ctx.log.recordCall(described);
    return askPerson(ctx, described, shown);
  }

  // 7. Recorded before it is sent: should the process die now, the call shows as in flight, never lost.
  const decision = planned ? "approved" : decisionFor(prepared, approved !== undefined, ctx);
  if (approved) ctx.log.finishCall(index, { status: "in_flight", request: shown, ...(described.idempotencyKey ? { idempotencyKey: described.idempotencyKey } : {}) });
  else {
    const by = planned
      ? { decidedBy: planned.by, decidedAt: planned.at, planWrite: planned.write }
      : decision === "approved" && ctx.preApprovedBy ? { decidedBy: ctx.preApprovedBy, decidedAt: new Date(ctx.now()).toISOString() } : {};
    ctx.log.recordCall({ ...described, status: "in_flight", decision, ...by });
  }

  // 8-10. Credentials, send, read.
  const done = ctx.onWire();
  try {
    const sent = await sendPrepared(deps, prepared, ctx.redactor, ctx.signal, () => cancelledBeforeSend(ctx));
    ctx.log.finishCall(index, {
      status: sent.response.status,
      request: sent.recordedRequest,
      response: sent.recordedResponse,
      result: sent.response as unknown as JsonValue,
      durationMs: sent.durationMs,
      ...(sent.firstAttempt ? { firstAttempt: sent.firstAttempt } : {}),
    });
    return { kind: "answer", answer: { ok: true, value: sent.response as unknown as JsonValue } };
  } catch (err) {
    const failure = asCallFailure(err, deps);
    // The process stopped waiting (it is closing): the request may have arrived, so its outcome is unknown, and it says so.
    if (ctx.signal.aborted) ctx.log.finishCall(index, { status: "unknown", error: abandonedError(ctx.signal) });
    else ctx.log.finishCall(index, { status: failure.callError.name === "CallFailed" ? "failed" : "rejected", error: failure.callError });
    return { kind: "answer", answer: { ok: false, error: failure.callError } };
  } finally {
    done();
  }
}

/** Why a call not yet sent when its run ended stays unsent, or undefined when it may go (see RunEnded). */
function afterRunEnded(ctx: CallContext, needsPerson: boolean): CallError | undefined {
  const ended = ctx.runEnded?.();
  if (!ended) return undefined;
  if (ended.cancelled) return { name: "CallRejected", message: `${ended.why} before this call was sent; nothing was sent` };
  if (needsPerson) return { name: "CallRejected", message: `this call needs a person's decision, but ${ended.why} before it could be asked; nothing was sent. Await the call in the program to have it decided.` };
  return undefined;
}

/** The run was cancelled while this call waited for its credential: it does not go. */
function cancelledBeforeSend(ctx: CallContext): string | undefined {
  const ended = ctx.runEnded?.();
  return ended?.cancelled ? `${ended.why} before this call was sent` : undefined;
}

function abandonedError(signal: AbortSignal): CallError {
  const why = signal.reason instanceof Error ? signal.reason.message : "the workbench stopped waiting";
  return { name: "CallFailed", message: `${why} before the upstream answered; the request may have reached it: outcome unknown, verify before retrying`, details: { reason: "abandoned" } };
}

/** Puts the call to a person: the waiting decision (recorded call first), announced. */
export function askPerson(ctx: Pick<CallContext, "runId" | "source" | "log" | "now" | "decisionTtlMs" | "onDecisionRequested">, described: CallEntry, shown: RecordedRequest, changes?: string[], plan?: Plan): CallResult {
  const now = ctx.now();
  const decision = ctx.log.putPendingDecision({
    runId: ctx.runId,
    callIndex: described.index,
    api: described.api,
    operation: described.operation,
    ...(described.operationId ? { operationId: described.operationId } : {}),
    request: shown,
    arguments: described.arguments,
    argumentsHash: described.argumentsHash,
    requestedBy: ctx.source,
    requestedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ctx.decisionTtlMs).toISOString(),
    ...(changes ? { changes } : {}),
    ...(plan ? { plan } : {}),
  });
  ctx.onDecisionRequested(decision);
  return { kind: "wait", decision };
}

function decisionFor(prepared: PreparedCall, approved: boolean, ctx: CallContext): Decision {
  if (approved) return "approved";
  const needsPerson = isWrite(prepared.operation) || prepared.references.length > 0;
  if (!needsPerson) return "not_needed";
  if (prepared.references.length === 0 && !prepared.target.oneOff && ctx.log.isAllowed(prepared.target.name, prepared.operation.id)) return "allowed_by_rule";
  return "approved";
}

export interface PreparedCall {
  target: ApiTarget;
  operation: Operation;
  call: CallRequest;
  pathParams: Record<string, JsonValue>;
  /** The arguments as the program gave them (references unexpanded). */
  arguments: JsonValue;
  /** The request exactly as it would be sent, before credentials, references unexpanded. */
  request: OutgoingRequest;
  references: string[];
  verdict: PolicyVerdict;
  /** Validation problems that did not stop the call (`validate: warn`), and spec patterns not checked. */
  warnings: string[];
}

export interface PrepareOptions {
  policy: RunPolicy;
  /** The caller approved writes up front, or a person approved this exact call. */
  preApproved?: boolean;
  allowedByRule?: (api: string, operationId: string) => boolean;
  /** Reuse this idempotency key (the one a person approved). */
  idempotencyKey?: string;
}

export async function prepareCall(deps: ProxyDeps, guest: GuestCall, opts: PrepareOptions): Promise<PreparedCall> {
  const target = deps.target(guest.api);
  if (!target) throw new CallFailure("CallRejected", unknownApiMessage(guest.api, deps.apiNames?.() ?? []));
  const { artifact } = target;

  // 0-1. Normalise the arguments and match the operation.
  let call: CallRequest;
  let operation: Operation;
  let pathParams: Record<string, JsonValue>;
  if (guest.op === "request") {
    call = parseRequestForm(guest.api, guest.args);
    const matched = matchPath(artifact, call.method as HttpMethod, call.path!, new URL(target.baseUrl).pathname);
    operation = matched.operation;
    pathParams = matched.pathParams;
  } else {
    operation = operationById(artifact, guest.op);
    call = parseBindingForm(guest.api, operation, guest.args);
    pathParams = call.pathParams;
  }

  try {
    return await decide(opts, target, operation, call, pathParams, guest.args, deps.vault);
  } catch (err) {
    if (err instanceof CallFailure) err.operation ??= operation;
    throw err;
  }
}

async function decide(
  opts: PrepareOptions,
  target: ApiTarget,
  operation: Operation,
  call: CallRequest,
  pathParams: Record<string, JsonValue>,
  args: JsonValue,
  vault: VaultReader,
): Promise<PreparedCall> {
  const { artifact } = target;
  // 2. Validate against the spec, as the API's settings say.
  const warnings: string[] = [];
  if (target.config.validate !== "off") {
    const issues = validateCall(artifact, operation, call, pathParams);
    if (issues.length) {
      const text = `${operation.id}: ${issues.map((i) => i.message).join("; ")}`;
      if (target.config.validate === "strict") throw new CallFailure("CallRejected", `invalid arguments for ${text}; nothing was sent`);
      warnings.push(`validation (sent anyway): ${text}`);
    }
    const unchecked = uncheckedPatterns(artifact, operation);
    if (unchecked.length) warnings.push(`the spec's pattern${unchecked.length > 1 ? "s" : ""} ${unchecked.map((p) => JSON.stringify(p)).join(", ")} could not be checked (lookaround and backreferences are not supported by the linear-time engine)`);
  }

  // 3-4. Policy, and whether this API may receive the vault references it carries.
  const carried = callValues(call, pathParams);
  const references = findReferences(carried).map((r) => `${r.item}/${r.field}`);
  if (references.length && target.oneOff) {
    throw new CallFailure("VaultDenied", `API ${target.name} was given on the command line (--spec) and gets no vault access; register it (workbench api add) and allow it on the vault item. Nothing was sent.`);
  }
  if (references.length) {
    // Checks every reference (exists, decrypts, allowed for this API) without keeping the secrets.
    const check = substituteReferences(carried, target.name, vault);
    if (!check.ok) throw new CallFailure("VaultDenied", check.error.message);
  }
  const verdict = checkPolicy({
    policy: opts.policy,
    operation,
    api: target.name,
    carriesVaultReference: references.length > 0,
    allowedByRule: !target.oneOff && (opts.allowedByRule?.(target.name, operation.id) ?? false),
    preApproved: opts.preApproved ?? false,
  });
  if (verdict.kind === "reject") throw new CallFailure("CallRejected", verdict.message);

  // 5. The exact request (what a person approves), references unexpanded; its URL checked to stay in the operation.
  const request = await buildRequest({ target, operation, call, pathParams, credentialSlots: credentialSlots(schemeFor(target, operation)), ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}) });
  return { target, operation, call, pathParams, arguments: args, request, references, verdict, warnings };
}

/** The request as a person approving it sees it: the credential placed by reference, nothing secret resolved. */
export function showRequest(prepared: PreparedCall, resolver?: CredentialResolver): RecordedRequest {
  const scheme = schemeFor(prepared.target, prepared.operation);
  const described = scheme ? resolver?.describe?.(prepared.target, scheme) : undefined;
  return describeRequest(previewCredential(prepared.request, scheme, prepared.target.config.auth?.credential, prepared.target.name, described));
}

export interface SentCall {
  response: CallResponse;
  /** For the call log: the request as sent and the response (the RunLog redacts them as it stores them). */
  recordedRequest: RecordedRequest;
  recordedResponse: RecordedResponse;
  durationMs: number;
  /** The first exchange, when it got 401 and the call was sent again with a refreshed credential. */
  firstAttempt?: FirstAttempt;
}

/**
 * Steps 8-10 for a prepared call: substitute vault references, attach the
 * credential, send, one refresh-and-retry on 401, read. The response is not
 * redacted here: `runCall`'s exits do that (decoded, then redacted).
 */
/**
 * `holdBack`, asked once the credential is in hand and just before the request
 * leaves: a reason not to send after all (the run was cancelled while the
 * credential was being fetched); the call then fails `CallRejected`, unsent.
 */
export async function sendPrepared(deps: ProxyDeps, prepared: PreparedCall, redactor: Redactor, signal?: AbortSignal, holdBack?: () => string | undefined): Promise<SentCall> {
  const { target, operation } = prepared;
  const started = performance.now();
  const scheme = schemeFor(target, operation);

  // 8a. Substitute vault references (permission was checked when preparing); the rebuilt URL is guarded again.
  let request = prepared.request;
  if (prepared.references.length) {
    const substituted = substituteReferences(callValues(prepared.call, prepared.pathParams), target.name, deps.vault);
    if (!substituted.ok) throw new CallFailure("VaultDenied", substituted.error.message);
    const values = substituted.value as { pathParams: Record<string, JsonValue>; query: Record<string, JsonValue>; headers: Record<string, string>; cookies: Record<string, string>; body: JsonValue };
    const call: CallRequest = { ...prepared.call, query: values.query, headers: values.headers, cookies: values.cookies };
    if (prepared.call.body !== undefined) call.body = values.body;
    else delete call.body;
    request = await buildRequest({
      target,
      operation,
      call,
      pathParams: values.pathParams,
      credentialSlots: credentialSlots(scheme),
      ...(prepared.request.idempotencyKey ? { idempotencyKey: prepared.request.idempotencyKey } : {}),
    });
  }

  // 8b. Credentials, decided now that the destination is known.
  const resolveRequest: ResolveRequest | undefined = scheme ? { target, scheme, destination: destinationOf(target, operation, request) } : undefined;
  let signed = request;
  let used: Credential | undefined;
  if (resolveRequest && scheme) {
    const resolved = await safeResolve(deps, () => deps.resolver.resolve(resolveRequest));
    if ("refused" in resolved) throw new CallFailure("CallRejected", `${resolved.refused}; nothing was sent`, resolved.details);
    const withCredential = attachCredential(request, scheme, resolved);
    for (const s of withCredential.secrets) redactor.add(s.label, s.value);
    signed = withCredential.request;
    if (resolved.kind !== "none") used = resolved;
  }

  // 9. Send; one refresh-and-retry on 401 to a credential we attached, same body and idempotency key.
  const sendOpts = {
    timeoutMs: target.config.timeoutMs,
    maxResponseBytes: target.config.maxResponseBytes,
    baseUrl: target.baseUrl,
    describe: describeDestination(prepared.request.url),
    ...(signal ? { signal } : {}),
  };
  const heldBack = holdBack?.();
  if (heldBack) throw new CallFailure("CallRejected", `${heldBack}; nothing was sent`);
  let raw = await sendRequest(signed, sendOpts);
  let firstAttempt: FirstAttempt | undefined;
  if (raw.status === 401 && used && resolveRequest && scheme && deps.resolver.unauthorized) {
    const refreshed = await safeResolve(deps, () => deps.resolver.unauthorized!(resolveRequest, used)).catch(() => "pass" as const);
    if (refreshed !== "pass" && !("refused" in refreshed)) {
      firstAttempt = { reason: "retried_after_401", request: recordRequest(signed, redactor), response: readRaw(raw, target).recorded, durationMs: Math.round(performance.now() - started) };
      const again = attachCredential(request, scheme, refreshed);
      for (const s of again.secrets) redactor.add(s.label, s.value);
      signed = again.request;
      raw = await sendRequest(signed, sendOpts);
    }
  }

  // 10. What the program receives and what the log keeps (both redacted at their exits).
  const read = readRaw(raw, target);
  return {
    response: read.response,
    recordedRequest: recordRequest(signed, redactor),
    recordedResponse: read.recorded,
    durationMs: Math.round(performance.now() - started),
    ...(firstAttempt ? { firstAttempt } : {}),
  };
}

function readRaw(raw: RawResponse, target: ApiTarget) {
  return readResponse(raw, target.config.responseHeaders);
}

/** Origin and path of the request as shown (references unexpanded, never the query): how errors name it. */
function describeDestination(url: URL): string {
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep it encoded
  }
  return `${url.origin}${path}`;
}

/** Names the registered APIs (the nearest first), so the program can correct the call in one step. */
function unknownApiMessage(name: string, known: string[]): string {
  const near = [...known].sort((a, b) => editDistance(name.toLowerCase(), a.toLowerCase()) - editDistance(name.toLowerCase(), b.toLowerCase()));
  const listed = near.length ? `the APIs are ${near.slice(0, 10).join(", ")}${near.length > 10 ? ` and ${near.length - 10} more` : ""}` : "no APIs are registered";
  if (!name) return `The call names no API: call apis.<api>.<operation>(args) or apis.call("<api>.<operation>", args); ${listed}. Nothing was sent.`;
  return `No API named ${name}; ${listed}. Nothing was sent.`;
}

/** Everything a call carries that a vault reference could hide in. */
function callValues(call: CallRequest, pathParams: Record<string, JsonValue>): JsonValue {
  return { pathParams, query: call.query, headers: call.headers, cookies: call.cookies, body: call.body ?? null };
}

async function safeResolve<T>(deps: ProxyDeps, fn: () => Promise<T>): Promise<T | { refused: string; details?: JsonValue }> {
  try {
    return await fn();
  } catch (err) {
    deps.log?.(`credential resolver failed: ${String(err)}`);
    return { refused: "the credential for this API could not be obtained" };
  }
}

function destinationOf(target: ApiTarget, operation: Operation, request: OutgoingRequest): Destination {
  return { api: target.name, method: request.method, baseUrl: target.baseUrl, host: request.url.host, path: operation.path, url: request.url };
}

/** A request as sent (the credential in it), for the record: redacted now, before it is kept anywhere. */
export function recordRequest(request: OutgoingRequest, redactor: Redactor): RecordedRequest {
  const entries = Object.entries(request.headers);
  const [url, ...values] = redactEach([request.url.href, ...entries.map(([, v]) => v)], (text) => redactor.redact(text));
  const headers = Object.fromEntries(entries.map(([k], i) => [k, values[i]!]));
  const recorded: RecordedRequest = { method: request.method, url: url!, headers };
  if (request.bodyPreview !== undefined) recorded.body = redactor.redact(request.bodyPreview);
  return recorded;
}

/**
 * A request as a person is shown it: built from the program's arguments with
 * references unexpanded and the credential by reference, so it holds no secret
 * of ours to hide; every place it is kept (the record, the waiting decision,
 * the plan) goes through the run's RunLog, which redacts it anyway.
 */
function describeRequest(request: OutgoingRequest): RecordedRequest {
  const described: RecordedRequest = { method: request.method, url: request.url.href, headers: { ...request.headers } };
  if (request.bodyPreview !== undefined) described.body = request.bodyPreview;
  return described;
}

function operationName(op: Operation): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

/** How a call that never matched an operation is named in the log: `POST /pets` or `apis.x.op`. */
function describeGuestCall(guest: GuestCall): string {
  const args = guest.args as { method?: unknown; path?: unknown } | null;
  if (guest.op === "request" && args && typeof args === "object" && typeof args.path === "string") {
    return `${typeof args.method === "string" ? args.method.toUpperCase() : "GET"} ${args.path.split("?")[0]!.slice(0, 200)}`;
  }
  return `apis.${guest.api}.${guest.op}`;
}

function asCallFailure(err: unknown, deps: ProxyDeps): CallFailure {
  if (err instanceof CallFailure) return err;
  return new CallFailure("CallFailed", reportInternalError(deps.log ?? (() => {}), "the workbench could not process this call", err), { reason: "internal" });
}
