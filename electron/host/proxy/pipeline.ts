/**
 * One call's path through the host, as a list of small steps (each in its own
 * file). `prepareCall` runs everything that can be decided without sending
 * (match, validate, policy, vault permission, the exact request); the caller
 * then records, asks a person if the verdict says so, and `sendPrepared` does
 * the rest (vault substitution, credentials, send, one 401 retry, response,
 * redaction). Errors are CallFailure values the program may catch.
 */
import type { HttpMethod, Operation } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { RecordedRequest, RecordedResponse, RunPolicy } from "../../../shared/runs.ts";
import { attachCredential } from "./attach.ts";
import { buildRequest } from "./build-request.ts";
import { parseBindingForm, parseRequestForm } from "./call-args.ts";
import { credentialHeaderNames, schemeFor, type CredentialResolver, type Destination, type ResolveRequest } from "./credentials.ts";
import { matchPath, operationById } from "./match.ts";
import { checkPolicy, type PolicyVerdict } from "./policy.ts";
import { readResponse, redactEach } from "./response.ts";
import { sendRequest } from "./send.ts";
import { CallFailure, type ApiTarget, type CallRequest, type CallResponse, type OutgoingRequest } from "./types.ts";
import { findReferences, substituteReferences, type VaultReader } from "../vault/references.ts";
import type { Redactor } from "../vault/redact.ts";
import { validateCall } from "./validate.ts";

export interface ProxyDeps {
  target(api: string): ApiTarget | undefined;
  /** The registered APIs' names, for the answer to a call to one that is not. */
  apiNames?(): string[];
  vault: VaultReader;
  resolver: CredentialResolver;
  fetch?: typeof fetch;
  log?: (message: string) => void;
}

/** What the guest sent: `apis.<api>.<op>(args)`, where op is "request" or an operation id. */
export interface GuestCall {
  api: string;
  op: string;
  args: JsonValue;
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
  /** Validation problems that did not stop the call (`validate: warn`). */
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
    return await decide(deps, guest, opts, target, operation, call, pathParams);
  } catch (err) {
    if (err instanceof CallFailure) err.operation ??= operation;
    throw err;
  }
}

async function decide(
  deps: ProxyDeps,
  guest: GuestCall,
  opts: PrepareOptions,
  target: ApiTarget,
  operation: Operation,
  call: CallRequest,
  pathParams: Record<string, JsonValue>,
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
  }

  // 3-4. Policy, and whether this API may receive the vault references it carries.
  const carried = callValues(call, pathParams);
  const references = findReferences(carried).map((r) => `${r.item}/${r.field}`);
  if (references.length) {
    // Checks every reference (exists, decrypts, allowed for this API) without keeping the secrets.
    const check = substituteReferences(carried, target.name, deps.vault);
    if (!check.ok) throw new CallFailure("VaultDenied", check.error.message);
  }
  const verdict = checkPolicy({
    policy: opts.policy,
    operation,
    api: target.name,
    carriesVaultReference: references.length > 0,
    allowedByRule: opts.allowedByRule?.(target.name, operation.id) ?? false,
    preApproved: opts.preApproved ?? false,
  });
  if (verdict.kind === "reject") throw new CallFailure("CallRejected", verdict.message);

  // 5. The exact request (what a person approves), references unexpanded.
  const scheme = schemeFor(target, operation);
  const request = await buildRequest({ target, operation, call, pathParams, credentialHeaders: credentialHeaderNames(scheme), ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}) });
  return { target, operation, call, pathParams, arguments: guest.args, request, references, verdict, warnings };
}

export interface SentCall {
  response: CallResponse;
  /** For the call log: the request as sent and the response, both redacted. */
  recordedRequest: RecordedRequest;
  recordedResponse: RecordedResponse;
  durationMs: number;
  /** The first attempt got 401 and was retried once with a refreshed credential. */
  retriedAfter401: boolean;
}

export async function sendPrepared(deps: ProxyDeps, prepared: PreparedCall, redactor: Redactor, signal?: AbortSignal): Promise<SentCall> {
  const { target, operation } = prepared;
  const started = performance.now();

  // 4. Substitute vault references (permission was checked in prepareCall).
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
      credentialHeaders: credentialHeaderNames(schemeFor(target, operation)),
      ...(prepared.request.idempotencyKey ? { idempotencyKey: prepared.request.idempotencyKey } : {}),
    });
  }

  // 6. Credentials, decided now that the destination is known.
  const scheme = schemeFor(target, operation);
  const resolveRequest: ResolveRequest | undefined = scheme ? { target, scheme, destination: destinationOf(target, operation, request) } : undefined;
  let signed = request;
  let attached = false;
  if (resolveRequest && scheme) {
    const answer = await safeResolve(deps, () => deps.resolver.resolve(resolveRequest));
    if ("refused" in answer) throw new CallFailure("CallRejected", `${answer.refused}; nothing was sent`);
    const withCredential = attachCredential(request, scheme, answer);
    for (const s of withCredential.secrets) redactor.add(s.label, s.value);
    signed = withCredential.request;
    attached = answer.kind !== "none";
  }

  // 7. Send; one refresh-and-retry on 401 to a credential we attached, same body and idempotency key.
  const sendOpts = { timeoutMs: target.config.timeoutMs, maxResponseBytes: target.config.maxResponseBytes, ...(deps.fetch ? { fetch: deps.fetch } : {}), ...(signal ? { signal } : {}) };
  let raw = await sendRequest(signed, sendOpts);
  let retried = false;
  if (raw.status === 401 && attached && resolveRequest && scheme && deps.resolver.unauthorized) {
    const refreshed = await safeResolve(deps, () => deps.resolver.unauthorized!(resolveRequest)).catch(() => "pass" as const);
    if (refreshed !== "pass" && !("refused" in refreshed)) {
      const again = attachCredential(request, scheme, refreshed);
      for (const s of again.secrets) redactor.add(s.label, s.value);
      signed = again.request;
      raw = await sendRequest(signed, sendOpts);
      retried = true;
    }
  }

  // 8. What the program receives, and what the log keeps: both redacted.
  const read = readResponse(raw, target.config.responseHeaders, (text) => redactor.redact(text), (value) => redactor.redactJson(value));
  return {
    response: read.response,
    recordedRequest: recordRequest(signed, redactor),
    recordedResponse: read.recorded,
    durationMs: Math.round(performance.now() - started),
    retriedAfter401: retried,
  };
}

/** Names the registered APIs (the nearest first), so the program can correct the call in one step. */
function unknownApiMessage(name: string, known: string[]): string {
  const near = [...known].sort((a, b) => nameDistance(name, a) - nameDistance(name, b));
  const listed = near.length ? `the APIs are ${near.slice(0, 10).join(", ")}${near.length > 10 ? ` and ${near.length - 10} more` : ""}` : "no APIs are registered";
  if (!name) return `The call names no API: call apis.<api>.<operation>(args) or apis.call("<api>.<operation>", args); ${listed}. Nothing was sent.`;
  return `No API named ${name}; ${listed}. Nothing was sent.`;
}

/** Case-insensitive edit distance between two short names. */
function nameDistance(a: string, b: string): number {
  const x = a.toLowerCase().slice(0, 60);
  const y = b.toLowerCase().slice(0, 60);
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length]!;
}

/** Everything a call carries that a vault reference could hide in. */
function callValues(call: CallRequest, pathParams: Record<string, JsonValue>): JsonValue {
  return { pathParams, query: call.query, headers: call.headers, cookies: call.cookies, body: call.body ?? null };
}

async function safeResolve<T>(deps: ProxyDeps, fn: () => Promise<T>): Promise<T | { refused: string }> {
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

/** JSON with object keys sorted, so equal values always hash equal. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function recordRequest(request: OutgoingRequest, redactor: Redactor): RecordedRequest {
  const entries = Object.entries(request.headers);
  const [url, ...values] = redactEach([request.url.href, ...entries.map(([, v]) => v)], (text) => redactor.redact(text));
  const headers = Object.fromEntries(entries.map(([k], i) => [k, values[i]!]));
  const recorded: RecordedRequest = { method: request.method, url: url!, headers };
  if (request.bodyPreview !== undefined) recorded.body = redactor.redact(request.bodyPreview);
  return recorded;
}
