/**
 * `codemode-workbench://` links: `run/<id>` opens a run, `inbox` the
 * approvals inbox (`inbox/<id>` at that run's waiting call). The OS hands a
 * link to the app in its command line (Windows, Linux: a second launch, whose
 * argv reaches the running instance) or as an `open-url` event (macOS).
 * Anything else in the link is refused: a web page can open these links.
 */
import { openTarget, type OpenTarget } from "../../shared/contract.ts";

export const LINK_SCHEME = "codemode-workbench";

export function parseOpenLink(link: string): OpenTarget | undefined {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${LINK_SCHEME}:`) return undefined;
  // `codemode-workbench://run/run_x`: WHATWG parses the first segment as the host of a non-special scheme.
  const parts = [url.host, ...url.pathname.split("/")].filter(Boolean);
  const [kind, id, ...rest] = parts;
  if (rest.length || url.search || url.hash) return undefined;
  const candidate = kind === "run" ? { kind, runId: id } : kind === "inbox" ? { kind, ...(id ? { runId: id } : {}) } : undefined;
  const parsed = openTarget.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
}

/** The first link in a command line (the OS appends it to the app's arguments). */
export function openLinkInArgv(argv: readonly string[]): OpenTarget | undefined {
  for (const arg of argv) {
    if (!arg.startsWith(`${LINK_SCHEME}:`)) continue;
    const target = parseOpenLink(arg);
    if (target) return target;
  }
  return undefined;
}

export function openLink(target: OpenTarget): string {
  return target.kind === "run" ? `${LINK_SCHEME}://run/${target.runId}` : `${LINK_SCHEME}://inbox${target.runId ? `/${target.runId}` : ""}`;
}
