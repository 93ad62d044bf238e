/**
 * Step 7: put the request on the wire with Node's fetch. A per-API timeout
 * covers the whole exchange; the response size cap is enforced while the body
 * streams in (a 50 MB answer is refused after the first chunk past the cap,
 * never buffered whole); redirects are followed by hand and only while they stay
 * under the API's base URL, so a credential never travels anywhere else.
 *
 * Failures are `CallFailed` with `details.reason` the program can branch on
 * (unreachable, dns, tls, timeout, too_large, too_many_redirects, cancelled,
 * protocol). Their text names the destination as the caller describes it (the
 * request as shown, vault references unexpanded) and never quotes fetch's own
 * message, which can hold header values and so a credential.
 */
import { CallFailure, type OutgoingRequest } from "./types.ts";
import { isUnderBase } from "./url-guard.ts";

export interface SendOptions {
  fetch?: typeof fetch;
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

export function sendFailure(reason: SendFailureReason, message: string, extra: Record<string, string | number> = {}): CallFailure {
  return new CallFailure("CallFailed", message, { reason, ...extra });
}

export async function sendRequest(request: OutgoingRequest, opts: SendOptions): Promise<RawResponse> {
  const doFetch = opts.fetch ?? fetch;
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
      const response = await doFetch(url, { method, headers, body: body as RequestInit["body"], redirect: "manual", signal });
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location) {
        const next = safeUrl(location, url);
        // Elsewhere (another origin, outside the base path): not followed. The program sees the redirect and its Location.
        if (next && isUnderBase(next, opts.baseUrl)) {
          await response.body?.cancel();
          if (hop >= maxRedirects) throw sendFailure("too_many_redirects", `${where} redirected more than ${maxRedirects} times; nothing more was sent`);
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
            method = method === "HEAD" ? "HEAD" : "GET";
            body = undefined;
            headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== "content-type"));
          }
          url = next;
          continue;
        }
      }
      const bytes = await readCapped(response, opts.maxResponseBytes, where);
      return { status: response.status, statusText: response.statusText, headers: response.headers, body: bytes, url };
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

async function readCapped(response: Response, cap: number, where: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > cap) {
    await response.body?.cancel();
    throw tooLarge(where, cap, `it declared ${declared} bytes`);
  }
  if (!response.body) return new Uint8Array();
  // A declared length under the cap: read it in one go (the cheap path for ordinary answers).
  if (Number.isFinite(declared)) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      throw tooLarge(where, cap, `more than ${cap} bytes arrived`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

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
  const cause = (err as { cause?: { code?: unknown; cause?: { code?: unknown } } } | undefined)?.cause;
  const raw = cause?.code ?? cause?.cause?.code;
  const code = typeof raw === "string" && /^[A-Z0-9_]{2,60}$/.test(raw) ? raw : "network error";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return { reason: "dns", code };
  if (TLS_CODES.test(code)) return { reason: "tls", code };
  if (/^(?:HPE_|UND_ERR_(?:INVALID|INFO|RES|NOT_SUPPORTED))/.test(code)) return { reason: "protocol", code };
  return { reason: "unreachable", code };
}
