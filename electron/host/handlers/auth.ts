/**
 * `auth.*`: people's OAuth2 sign-ins, for the API settings and the run
 * console's "Sign in". A sign-in starts here and ends in the background (the
 * person is in their browser, or entering a code on another device); its end
 * is an `auth.changed` event. Tokens never cross this seam.
 */
import type { Ack } from "../../../shared/contract.ts";
import type { HandlerContext, HandlerGroup } from "./context.ts";

type AuthChannels = "auth.status" | "auth.login" | "auth.logout";

export function authHandlers(ctx: HandlerContext): HandlerGroup<AuthChannels> {
  const { signIns } = ctx.workbench;
  return {
    "auth.status": async () => signIns.status(),
    "auth.login": async ({ api, method, scopes }) => {
      const options = scopes ? { scopes } : {};
      const started = method === "device" ? await signIns.startDevice(api, options) : await signIns.startBrowser(api, { ...options, ...(ctx.openExternal ? { open: ctx.openExternal } : {}) });
      // The outcome is published as auth.changed; nobody awaits it here.
      void started.done?.catch(() => {});
      return started.start;
    },
    "auth.logout": async ({ api }): Promise<Ack> => signIns.logout(api).then((r) => (r.ok ? { ok: true, message: r.message } : { ok: false, message: r.message })),
  };
}
