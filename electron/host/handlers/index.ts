/**
 * The host side of every channel in shared/contract.ts, over one Workbench.
 * The HTTP bridge of `workbench serve` and Electron's IPC both call
 * `dispatchChannel`, which parses the request with the channel's zod schema
 * before any handler sees it and turns failures into `ChannelError` data.
 */
import { contract, type ChannelError, type ChannelName, type ParsedRequestOf, type ReplyOf } from "../../../shared/contract.ts";
import { workbenchVersion } from "../common/assets.ts";
import { apiHandlers } from "./apis.ts";
import { authHandlers } from "./auth.ts";
import type { Caller, ChannelHandler, ChannelHandlers, HandlerContext } from "./context.ts";
import { reportInternalError } from "../common/host-log.ts";
import { ChannelFailure, channelError, notFound } from "./failure.ts";
import { programHandlers } from "./programs.ts";
import { runHandlers } from "./runs.ts";
import { settingsHandlers } from "./settings.ts";
import { vaultHandlers } from "./vault.ts";

export type { Caller, ChannelHandlers, ConnectProvider, HandlerContext, UiSessionStore } from "./context.ts";
export { ChannelFailure } from "./failure.ts";

export function createHandlers(ctx: HandlerContext): ChannelHandlers {
  return {
    "app.info": async () => ({ version: workbenchVersion(), dataDir: ctx.workbench.dataDir, node: process.version, shell: ctx.shell }),
    // The windows (the app's, or the browser tabs of `workbench serve`) hear it on the event stream and show the target.
    "app.open": async ({ target }) => {
      if (target.runId && !ctx.workbench.store.getRunSummary(target.runId)) throw notFound(`there is no run ${target.runId} in ${ctx.workbench.dataDir}`);
      ctx.workbench.bus.publish({ type: "app.open", target });
      return { ok: true, message: ctx.shell === "electron" ? "shown in the app" : "shown in the open browser tabs of workbench serve" };
    },
    "ui.session.get": async () => ctx.uiSession?.get() ?? null,
    "ui.session.save": async (session) => {
      if (!ctx.uiSession) return { ok: false, message: "only the desktop app keeps open tabs between launches" };
      ctx.uiSession.save(session);
      return { ok: true };
    },
    ...apiHandlers(ctx),
    ...runHandlers(ctx),
    ...vaultHandlers(ctx),
    ...authHandlers(ctx),
    "connect.info": async () => ctx.connect.info(),
    "connect.rotate": async () => ctx.connect.rotate(),
    ...programHandlers(ctx),
    ...settingsHandlers(ctx),
  };
}

export function isChannelName(name: string): name is ChannelName {
  return Object.hasOwn(contract, name);
}

export type Dispatched<C extends ChannelName = ChannelName> = { ok: true; reply: ReplyOf<C> } | { ok: false; error: ChannelError };

/** Parses `payload` with the channel's schema, calls its handler, and never throws. */
export async function dispatchChannel(handlers: ChannelHandlers, channel: string, payload: unknown, caller: Caller, log: (message: string) => void = () => {}): Promise<Dispatched> {
  if (!isChannelName(channel)) return { ok: false, error: channelError("not-found", `there is no channel "${channel}"; the app and the host may be different versions`) };
  const parsed = contract[channel].request.safeParse(payload ?? {});
  if (!parsed.success) return { ok: false, error: channelError("invalid-request", `${channel}: ${describeIssues(parsed.error.issues)}`) };
  try {
    const handler = handlers[channel] as ChannelHandler<typeof channel>;
    const reply = await handler(parsed.data as ParsedRequestOf<typeof channel>, caller);
    return { ok: true, reply };
  } catch (err) {
    if (err instanceof ChannelFailure) return { ok: false, error: channelError(err.code, err.message) };
    // Host exception text can carry secrets: the log gets it (redacted), the caller a fixed message with an error id.
    return { ok: false, error: channelError("failed", `${reportInternalError(log, `${channel} failed on the host`, err)}; try again, and report it if it keeps failing`) };
  }
}

function describeIssues(issues: readonly { path: PropertyKey[]; message: string; code: string; keys?: string[] }[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path.map(String).join(".");
      if (issue.code === "unrecognized_keys" && issue.keys) return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}${where ? ` in ${where}` : ""}`;
      return `${where || "request"}: ${issue.message}`;
    })
    .join("; ");
}
