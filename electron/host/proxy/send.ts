/**
 * Step 7: put the request on the wire with Node's fetch. A per-API timeout
 * covers the whole exchange; the response size cap is enforced while the body
 * streams in (a 50 MB answer is refused after the first chunk past the cap,
 * never buffered whole); redirects are followed by hand and only within the
 * same origin, so a credential never travels to another host.
 */
import { CallFailure, type OutgoingRequest } from "./types.ts";

export interface SendOptions {
  fetch?: typeof fetch;
  timeoutMs: number;
  maxResponseBytes: number;
  /** The run's cancellation. */
  signal?: AbortSignal;
  maxRedirects?: number;
}

export interface RawResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: Uint8Array;
  /** The URL that answered (after same-origin redirects). */
  url: URL;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

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
  const where = `${request.url.origin}${request.url.pathname}`; // never the query: it may hold an API key
  let url = request.url;
  let method = request.method;
  let body = request.body;
  let headers = request.headers;
  try {
    for (let hop = 0; ; hop++) {
      const response = await doFetch(url, { method, headers, body: body as RequestInit["body"], redirect: "manual", signal });
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location && hop < (opts.maxRedirects ?? 5)) {
        const next = new URL(location, url);
        if (next.origin === url.origin) {
          await response.body?.cancel();
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
            method = method === "HEAD" ? "HEAD" : "GET";
            body = undefined;
            headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== "content-type"));
          }
          url = next;
          continue;
        }
        // Another origin: not followed. The program sees the redirect and its Location.
      }
      const bytes = await readCapped(response, opts.maxResponseBytes, where);
      return { status: response.status, statusText: response.statusText, headers: response.headers, body: bytes, url };
    }
  } catch (err) {
    if (err instanceof CallFailure) throw err;
    if (opts.signal?.aborted) throw new CallFailure("CallFailed", `the run was cancelled while waiting for ${where}`);
    if (timedOut) throw new CallFailure("CallFailed", `no answer from ${where} within ${opts.timeoutMs} ms (the API's timeout)`);
    throw new CallFailure("CallFailed", `could not reach ${where}: ${networkReason(err)}`);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", cancel);
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
  return new CallFailure("CallFailed", `the response from ${where} is larger than the API's limit of ${cap} bytes (${detail}); ask for less (filters, pagination) or raise maxResponseBytes`);
}

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message.slice(0, 200);
  return err instanceof Error ? err.message.slice(0, 200) : "network error";
}
