/**
 * A run's calls as HAR 1.2, so they open in browser dev tools, Charles,
 * Insomnia or any HAR viewer. Only calls whose request may have left the
 * machine become entries (answered, failed, in flight, unknown): a HAR is a
 * record of traffic, and a denied or rejected call was never traffic. Those
 * are listed in `log._workbench.notInHar` instead, so nothing goes missing
 * without a word. Workbench facts with no HAR field (decision, who decided,
 * idempotency key, arguments hash) go in `_workbench` custom fields, which
 * HAR allows when the name starts with an underscore.
 */
import { STATUS_CODES } from "node:http";
import type { CallRecord, FirstAttempt, RecordedRequest, RecordedResponse } from "../../../shared/runs.ts";
import { workbenchVersion } from "../common/assets.ts";
import { callStatusColumns, SENT_STATES } from "./rows.ts";
import type { CodeRunStore } from "./store.ts";

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarRequest {
  method: string;
  url: string;
  httpVersion: string;
  cookies: HarNameValue[];
  headers: HarNameValue[];
  queryString: HarNameValue[];
  postData?: { mimeType: string; text: string; comment?: string; _encoding?: "base64" };
  headersSize: number;
  bodySize: number;
}

export interface HarResponse {
  status: number;
  statusText: string;
  httpVersion: string;
  cookies: HarNameValue[];
  headers: HarNameValue[];
  content: { size: number; mimeType: string; text?: string; encoding?: "base64"; comment?: string };
  redirectURL: string;
  headersSize: number;
  bodySize: number;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache: Record<string, never>;
  timings: { blocked: number; dns: number; connect: number; send: number; wait: number; receive: number; ssl: number };
  _workbench: Record<string, unknown>;
}

export interface Har {
  log: {
    version: "1.2";
    creator: { name: string; version: string };
    comment: string;
    entries: HarEntry[];
    _workbench: { run: string; status: string; notInHar: { index: number; operation: string; status: string | number; why: string }[] };
  };
}

/** undici speaks HTTP/1.1 to upstreams; we do not record the negotiated version per call. */
const HTTP_VERSION = "HTTP/1.1";

export function exportHar(store: CodeRunStore, runId: string, creator = defaultCreator()): Har | undefined {
  const run = store.getRun(runId);
  if (!run) return undefined;
  const entries: HarEntry[] = [];
  const notInHar: Har["log"]["_workbench"]["notInHar"] = [];
  for (const call of store.getCalls(runId)) {
    const sent = SENT_STATES.includes(callStatusColumns(call.status).state);
    // A call retried after 401 reached the upstream twice: two entries, the first with its own 401.
    if (sent && call.request && call.firstAttempt) entries.push(firstAttemptEntry(call, call.firstAttempt));
    if (sent && call.request) entries.push(entryOf(call, call.request));
    else notInHar.push({ index: call.index, operation: call.operation, status: call.status, why: sent ? "no request recorded" : "never sent" });
  }
  return {
    log: {
      version: "1.2",
      creator,
      comment: `Calls of code run ${run.id}, secrets redacted.`,
      entries,
      _workbench: { run: run.id, status: run.status, notInHar },
    },
  };
}

function entryOf(call: CallRecord, request: RecordedRequest): HarEntry {
  const time = call.durationMs ?? 0;
  return {
    startedDateTime: call.startedAt,
    time,
    request: harRequest(request),
    response: harResponse(call.response),
    cache: {},
    // We time a call as a whole; HAR wants the parts to add up to `time`, so it is all "wait".
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait: time, receive: 0, ssl: -1 },
    _workbench: defined({
      index: call.index,
      completionOrder: call.completionOrder,
      api: call.api,
      operation: call.operation,
      operationId: call.operationId,
      status: call.status,
      note: call.status === "unknown" || call.status === "in_flight" ? "outcome unknown, verify before retrying" : undefined,
      error: call.error,
      decision: call.decision,
      decidedBy: call.decidedBy,
      decidedAt: call.decidedAt,
      idempotencyKey: call.idempotencyKey,
      argumentsHash: call.argumentsHash,
    }),
  };
}

function firstAttemptEntry(call: CallRecord, first: FirstAttempt): HarEntry {
  const entry = entryOf({ ...call, response: first.response, durationMs: first.durationMs, status: first.response.status }, first.request);
  entry._workbench = { ...entry._workbench, note: "answered 401; sent again once with a refreshed credential (the next entry)" };
  return entry;
}

function harRequest(request: RecordedRequest): HarRequest {
  const headers = nameValues(request.headers);
  const out: HarRequest = {
    method: request.method.toUpperCase(),
    url: request.url,
    httpVersion: HTTP_VERSION,
    cookies: requestCookies(header(request.headers, "cookie")),
    headers,
    queryString: queryOf(request.url),
    headersSize: -1,
    bodySize: request.body === undefined ? 0 : bodySize(request),
  };
  if (request.body !== undefined) {
    out.postData = defined({
      mimeType: header(request.headers, "content-type") ?? "application/octet-stream",
      text: request.body,
      comment: truncationNote(request),
      _encoding: request.bodyEncoding === "base64" ? ("base64" as const) : undefined,
    });
  }
  return out;
}

/** A call with no answer (in flight, unknown, failed) gets status 0, as browsers record an aborted request. */
function harResponse(response: RecordedResponse | undefined): HarResponse {
  if (!response) {
    return { status: 0, statusText: "", httpVersion: "", cookies: [], headers: [], content: { size: 0, mimeType: "x-unknown" }, redirectURL: "", headersSize: -1, bodySize: -1 };
  }
  const size = response.body === undefined ? 0 : bodySize(response);
  return {
    status: response.status,
    statusText: STATUS_CODES[response.status] ?? "",
    httpVersion: HTTP_VERSION,
    cookies: responseCookies(header(response.headers, "set-cookie")),
    headers: nameValues(response.headers),
    content: defined({
      size,
      mimeType: header(response.headers, "content-type") ?? "x-unknown",
      text: response.body,
      encoding: response.bodyEncoding === "base64" ? ("base64" as const) : undefined,
      comment: truncationNote(response),
    }),
    redirectURL: header(response.headers, "location") ?? "",
    headersSize: -1,
    bodySize: size,
  };
}

function bodySize(record: RecordedRequest | RecordedResponse): number {
  return record.bodyBytes ?? Buffer.byteLength(record.body ?? "", record.bodyEncoding === "base64" ? "base64" : "utf8");
}

function truncationNote(record: RecordedRequest | RecordedResponse): string | undefined {
  if (!record.truncated) return undefined;
  const kept = Buffer.byteLength(record.body ?? "", record.bodyEncoding === "base64" ? "base64" : "utf8");
  return `body truncated by the workbench: ${kept} of ${record.bodyBytes ?? "?"} bytes kept`;
}

function nameValues(headers: Record<string, string>): HarNameValue[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function queryOf(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function requestCookies(cookie: string | undefined): HarNameValue[] {
  if (!cookie) return [];
  return cookie.split(";").flatMap((pair) => cookiePair(pair));
}

/** One Set-Cookie per line when several were joined; only name and value are kept. */
function responseCookies(setCookie: string | undefined): HarNameValue[] {
  if (!setCookie) return [];
  return setCookie.split("\n").flatMap((line) => cookiePair(line.split(";")[0] ?? ""));
}

function cookiePair(pair: string): HarNameValue[] {
  const eq = pair.indexOf("=");
  if (eq <= 0) return [];
  return [{ name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() }];
}

function defined<T extends object>(record: T): T {
  for (const key of Object.keys(record) as (keyof T)[]) if (record[key] === undefined) delete record[key];
  return record;
}

function defaultCreator(): { name: string; version: string } {
  return { name: "Codemode Workbench", version: workbenchVersion() };
}
