/**
 * Where calls go when the person gave no base URL: the spec's first server,
 * its `{variables}` filled with their defaults, and a relative URL resolved
 * against the URL the spec was fetched from (the spec's own rule). A relative
 * server from a file or pasted text has nothing to resolve against, so it is an
 * error at registration that asks for a base URL, not a failed first call.
 */
import { baseUrlProblem } from "../../../shared/api-config.ts";
import type { ServerInfo } from "../../../shared/artifact.ts";
import type { ApiSource } from "./registry-types.ts";

export type BaseUrlResult = { ok: true; url: string } | { ok: false; error: { code: string; message: string } };

export function defaultBaseUrl(servers: readonly ServerInfo[], source: ApiSource): BaseUrlResult {
  const server = servers[0] ?? { url: "/" };
  const missing: string[] = [];
  const url = server.url.replace(/\{([^{}]*)\}/g, (_, name: string) => {
    const variable = server.variables && Object.hasOwn(server.variables, name) ? server.variables[name] : undefined;
    if (variable) return variable.default;
    missing.push(name);
    return `{${name}}`;
  });
  if (missing.length > 0) {
    return needed(`the spec's server URL ${shorten(server.url)} uses ${missing.map((n) => `{${n}}`).join(", ")} without a default value`);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return checked(url, server.url);
  if (source.kind === "url") {
    try {
      return checked(new URL(url, source.url).href, server.url);
    } catch {
      return needed(`the spec's server URL ${shorten(server.url)} cannot be resolved against ${shorten(source.url)}`);
    }
  }
  const where = servers.length === 0 ? "the spec lists no servers" : `the spec's server URL ${shorten(server.url)} is relative`;
  return needed(`${where} and the spec did not come from a URL to resolve it against`);
}

/** A spec's server URL is untrusted input: it passes the same rules as a base URL a person types. */
function checked(url: string, declared: string): BaseUrlResult {
  const problem = baseUrlProblem(url);
  if (problem) return needed(`the spec's server URL ${shorten(declared)} cannot be used (${problem})`);
  return { ok: true, url: new URL(url).href.replace(/\/+$/, "") };
}

/** A URL as messages show it: without user info or query (either may hold a secret), and short. */
function shorten(text: string): string {
  const shown = text.replace(/^([a-z][\w+.-]*:\/\/)[^/@?#]*@/i, "$1…@").replace(/([?#]).*$/s, "$1…");
  return shown.length > 120 ? `${shown.slice(0, 117)}...` : shown;
}

function needed(why: string): BaseUrlResult {
  return { ok: false, error: { code: "base-url-needed", message: `${why}; give a base URL (--base-url https://...)` } };
}
