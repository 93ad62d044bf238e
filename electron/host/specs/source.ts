/**
 * Where spec text comes from: a file, an http(s) URL, or text pasted in.
 * URLs are fetched with a size limit enforced while streaming (a server that
 * lies about Content-Length, or sends none, is still cut off) and a timeout
 * that covers the whole download. `fetch` is injected so tests and the app
 * decide what the network is.
 */
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiSource } from "./registry-types.ts";

export const DEFAULT_MAX_SPEC_BYTES = 50 * 1024 * 1024;
export const DEFAULT_SPEC_TIMEOUT_MS = 30_000;

export interface SpecSourceOptions {
  fetch?: typeof fetch;
  maxBytes?: number;
  timeoutMs?: number;
  /** Directory relative file paths are read from (default: the process's). */
  cwd?: string;
}

export type LoadedSpec =
  | { ok: true; text: string; source: ApiSource; /** How to name the source to a person. */ label: string }
  | { ok: false; error: { code: string; message: string } };

export async function loadSpecSource(arg: string | { text: string; filename?: string }, opts: SpecSourceOptions = {}): Promise<LoadedSpec> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_SPEC_BYTES;
  if (typeof arg !== "string") {
    if (Buffer.byteLength(arg.text, "utf8") > maxBytes) return fail("too-large", `the pasted spec is larger than ${formatBytes(maxBytes)}`);
    return { ok: true, text: arg.text, source: { kind: "text", ...(arg.filename ? { filename: arg.filename } : {}) }, label: arg.filename ?? "pasted text" };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(arg)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") return fetchSpec(arg, maxBytes, opts);
  if (scheme === "file") return readSpecFile(fileURLToPath(arg), arg, maxBytes);
  if (scheme) return fail("unsupported-source", `cannot load a spec from a ${scheme}: URL; give a file path or an http(s) URL`);
  return readSpecFile(resolve(opts.cwd ?? process.cwd(), arg), arg, maxBytes);
}

async function readSpecFile(path: string, label: string, maxBytes: number): Promise<LoadedSpec> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) return fail("not-a-file", `${label} is a directory, not a spec file`);
    if (info.size > maxBytes) return fail("too-large", `${label} is ${formatBytes(info.size)}, more than the ${formatBytes(maxBytes)} a spec may be`);
    return { ok: true, text: decode(await readFile(path)), source: { kind: "file", path }, label };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return fail("not-found", `no such file: ${label}`);
    if (code === "EACCES" || code === "EPERM") return fail("unreadable", `not allowed to read ${label}`);
    return fail("unreadable", `cannot read ${label}: ${code ?? String(err)}`);
  }
}

async function fetchSpec(url: string, maxBytes: number, opts: SpecSourceOptions): Promise<LoadedSpec> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SPEC_TIMEOUT_MS;
  const fetchImpl = opts.fetch ?? fetch;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetchImpl(url, { signal, redirect: "follow", headers: { accept: "application/json, application/yaml, text/yaml, text/plain;q=0.9, */*;q=0.5" } });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return fail("http-error", `GET ${url} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
    }
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > maxBytes) {
      await res.body?.cancel().catch(() => {});
      return fail("too-large", `${url} is ${formatBytes(declared)}, more than the ${formatBytes(maxBytes)} a spec may be`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (res.body) {
      const reader = res.body.getReader();
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel().catch(() => {});
          return fail("too-large", `${url} sent more than the ${formatBytes(maxBytes)} a spec may be; stopped reading`);
        }
        chunks.push(value);
      }
    }
    return { ok: true, text: decode(Buffer.concat(chunks)), source: { kind: "url", url }, label: url };
  } catch (err) {
    if (signal.aborted) return fail("timeout", `${url} did not finish answering within ${timeoutMs / 1000} s`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return fail("fetch-failed", `could not fetch ${url}: ${cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))}`);
  }
}

/** UTF-8, as JSON and YAML are; a byte order mark is left for the parser to skip. */
function decode(bytes: Uint8Array): string {
  return new TextDecoder("utf-8").decode(bytes);
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) ? 1 : 0)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}

function fail(code: string, message: string): LoadedSpec {
  return { ok: false, error: { code, message } };
}
