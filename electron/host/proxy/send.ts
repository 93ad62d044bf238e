/**
 * Step 7: put the request on the wire with undici's `request` (the HTTP client
 * Node's own fetch is built on, without fetch's Web-stream layers: a call
 * costs a third less). A per-API timeout covers the whole exchange; the
 * response size cap is enforced while the body streams in, after decoding
 * (a 50 MB answer, or a small gzip that inflates to one, is refused at the
 * first chunk past the cap, never buffered whole); redirects are followed by
 * hand and only while they stay under the API's base URL, so a credential
 * never travels anywhere else.
 *
 * As fetch did, the upstream is offered gzip, deflate and brotli (unless the
 * call asked for an encoding itself) and the answer is decoded; none of this
 * is part of the request a person approves or the record keeps.
 *
 * Failures are `CallFailed` with `details.reason` the program can branch on
 * (unreachable, dns, tls, timeout, too_large, too_many_redirects, cancelled,
 * protocol). Their text names the destination as the caller describes it (the
 * request as shown, vault references unexpanded) and never quotes the
 * client's own message, which can hold header values and so a credential.
 */
import { Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { request as sendOnWire, type Dispatcher } from "undici";
import { CallFailure, type OutgoingRequest } from "./types.ts";
import { isUnderBase } from "./url-guard.ts";

export interface SendOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  /** The run's cancellation. */
  signal?: AbortSignal;
  maxRedirects?: number;
  /** Redirects are followed only while they stay under this base URL. */
  baseUrl: string;
  /** How errors name the destination: origin and path of the request as shown, never as sent. */
  describe: string;
}

export interface RawResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: Uint8Array;
  /** The URL that answered (after redirects under the base URL). */
  url: URL;
}

/** What `CallFailed` says went wrong, as data (`error.details.reason`). */
export type SendFailureReason = "unreachable" | "dns" | "tls" | "timeout" | "too_large" | "too_many_redirects" | "cancelled" | "protocol";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses that never carry a body (and so are never decoded). */
const NO_BODY = new Set([101, 204, 205, 304]);
const ACCEPT_ENCODING = "gzip, deflate, br";
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

export function sendFailure(reason: SendFailureReason, message: string, extra: Record<string, string | number> = {}): CallFailure {
  return new CallFailure("CallFailed", message, { reason, ...extra });
}

export async function sendRequest(request: OutgoingRequest, opts: SendOptions): Promise<RawResponse> {
  // One controller for the API's timeout and the run's cancellation; both cleared when the call ends,
  // so a thousand calls do not leave a thousand timers (AbortSignal.timeout) or listeners behind.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  }, opts.timeoutMs);
  const cancel = () => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) cancel();
  opts.signal?.addEventListener("abort", cancel, { once: true });
  const signal = controller.signal;
  const where = opts.describe;
  const maxRedirects = opts.maxRedirects ?? 5;
  let url = request.url;
  let method = request.method;
  let body = request.body;
  let headers = request.headers;
  try {
    for (let hop = 0; ; hop++) {
      const onWire = "accept-encoding" in headers ? headers : { ...headers, "accept-encoding": ACCEPT_ENCODING };
      const response = await sendOnWire(url, { method: method as Dispatcher.HttpMethod, headers: onWire, body: body ?? null, signal });
      const location = single(response.headers.location);
      if (REDIRECTS.has(response.statusCode) && location) {
        const next = safeUrl(location, url);
        // Elsewhere (another origin, outside the base path): not followed. The program sees the redirect and its Location.
        if (next && isUnderBase(next, opts.baseUrl)) {
          await discard(response.body, true);
          if (hop >= maxRedirects) throw sendFailure("too_many_redirects", `${where} redirected more than ${maxRedirects} times; nothing more was sent`);
          if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === "POST")) {
            method = method === "HEAD" ? "HEAD" : "GET";
            body = undefined;
            headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== "content-type"));
          }
          url = next;
          continue;
        }
      }
      const hasBody = method !== "HEAD" && !NO_BODY.has(response.statusCode);
      const bytes = await readCapped(response, hasBody, opts.maxResponseBytes, where);
      return { status: response.statusCode, statusText: response.statusText, headers: toHeaders(response.headers), body: bytes, url };
    }
  } catch (err) {
    if (err instanceof CallFailure) throw err;
    if (opts.signal?.aborted) throw sendFailure("cancelled", `the run was cancelled while waiting for ${where}`);
    if (timedOut) throw sendFailure("timeout", `no answer from ${where} within ${opts.timeoutMs} ms (the API's timeout)`, { timeoutMs: opts.timeoutMs });
    const { reason, code } = classify(err);
    throw sendFailure(reason, `could not reach ${where}: ${code}`, { code });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", cancel);
  }
}

function safeUrl(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** Done with a body: read off (a little, so the connection can be reused) or dropped; never an unhandled error. */
async function discard(body: Dispatcher.ResponseData["body"], drain: boolean): Promise<void> {
  body.on("error", () => {});
  if (drain) await body.dump().catch(() => {});
  else body.destroy();
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The upstream's headers as fetch would give them: repeated ones kept, names lower-case. */
function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, one);
      } catch {
        // a value the Headers class refuses (the parser let it through): dropped, as fetch would not have given it either
      }
    }
  }
  return headers;
}

async function readCapped(response: Dispatcher.ResponseData, hasBody: boolean, cap: number, where: string): Promise<Uint8Array> {
  const { body } = response;
  const declared = Number(single(response.headers["content-length"]) ?? NaN);
  if (declared > cap) {
    await discard(body, false);
    throw tooLarge(where, cap, `it declared ${declared} bytes`);
  }
  if (!hasBody) {
    await discard(body, true);
    return new Uint8Array();
  }
  const codings = decodersFor(single(response.headers["content-encoding"]));
  // Not encoded, with a declared length under the cap: read it in one go (the cheap path for ordinary answers).
  if (!codings.length && Number.isFinite(declared)) return body.bytes();
  // Otherwise streamed: what arrives is counted, and what it decodes to; either past the cap ends the call.
  let arrived = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      arrived += chunk.byteLength;
      done(arrived > cap ? tooLarge(where, cap, `more than ${cap} bytes arrived`) : null, chunk);
    },
  });
  const chunks: Buffer[] = [];
  let total = 0;
  const collected = new Writable({
    write(chunk: Buffer, _encoding, done) {
      total += chunk.byteLength;
      chunks.push(chunk);
      done(total > cap ? tooLarge(where, cap, `its body decodes to more than ${cap} bytes`) : null);
    },
  });
  try {
    await pipeline([body, counted, ...codings.map((decoder) => decoder()), collected]);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && DECODE_ERROR.test(code)) {
      throw sendFailure("protocol", `the response from ${where} is declared as ${single(response.headers["content-encoding"])} but does not decode (${code})`, { code });
    }
    throw err;
  }
  return Buffer.concat(chunks);
}

/** The decoders for a Content-Encoding, outermost last as listed; none when any coding is unknown (the bytes are given as they came). */
function decodersFor(header: string | undefined): Array<() => Transform> {
  if (!header) return [];
  const codings = header.split(",").map((c) => c.trim().toLowerCase()).filter((c) => c && c !== "identity");
  if (codings.length > 3 || codings.some((c) => !Object.hasOwn(DECODERS, c))) return [];
  return codings.reverse().map((c) => DECODERS[c]!);
}

/** What zlib's decoders call a body that does not decode: `Z_DATA_ERROR`, `Z_BUF_ERROR` (cut short), brotli's `ERR__ERROR_FORMAT_…`. */
const DECODE_ERROR = /^(?:Z_|ERR__ERROR_)/;

function tooLarge(where: string, cap: number, detail: string): CallFailure {
  return sendFailure("too_large", `the response from ${where} is larger than the API's limit of ${cap} bytes (${detail}); ask for less (filters, pagination) or raise maxResponseBytes`, { limitBytes: cap });
}

const TLS_CODES = /^(?:CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/**
 * A network failure as a reason and an error code (`ECONNREFUSED`,
 * `CERT_HAS_EXPIRED`): codes only, never the error's message, which for an
 * invalid header quotes the header's value.
 */
export function classify(err: unknown): { reason: SendFailureReason; code: string } {
  const failure = err as { code?: unknown; cause?: { code?: unknown; cause?: { code?: unknown } } } | undefined;
  const raw = failure?.code ?? failure?.cause?.code ?? failure?.cause?.cause?.code;
  const code = typeof raw === "string" && /^[A-Z0-9_]{2,60}$/.test(raw) ? raw : "network error";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return { reason: "dns", code };
  if (TLS_CODES.test(code)) return { reason: "tls", code };
  if (/^(?:HPE_|UND_ERR_(?:INVALID|INFO|RES|NOT_SUPPORTED))/.test(code)) return { reason: "protocol", code };
  return { reason: "unreachable", code };
}
