/**
 * `vault.*`: items and fields with values masked. A value leaves the host
 * only through `vault.reveal`, the person's explicit request; nothing here
 * logs or echoes one, not even in an error.
 */
import type { Ack, VaultItemView } from "../../../shared/contract.ts";
import { isHostOnlyField } from "../vault/names.ts";
import type { VaultUpdate } from "../vault/vault.ts";
import type { HandlerContext, HandlerGroup } from "./context.ts";

type VaultChannels = "vault.list" | "vault.set" | "vault.allow" | "vault.remove" | "vault.reveal";

export function vaultHandlers(ctx: HandlerContext): HandlerGroup<VaultChannels> {
  const { vault } = ctx.workbench;
  return {
    "vault.list": async () => {
      // Another process (the CLI) may have changed vault.json since we last read it.
      vault.reload();
      return vault.list().map((item): VaultItemView => ({
        name: item.name,
        allowApis: item.allowApis,
        fields: item.fields.map((f) => ({ name: f.name, ...(f.problem ? { problem: f.problem } : {}), ...(isHostOnlyField(f.name) ? { hostOnly: true } : {}) })),
      }));
    },
    "vault.set": async ({ item, field, value, allowApis }) =>
      ack(vault.set(item, field, value, allowApis ? { allowApis } : {}), `saved ${item}/${field}`),
    "vault.allow": async ({ item, apis }) =>
      ack(vault.setAllowedApis(item, apis), apis.length ? `${item} may be sent to ${apis.join(", ")}` : `${item} may not be sent to any API`),
    "vault.remove": async ({ item, field }) => ack(vault.remove(item, field), field ? `removed ${item}/${field}` : `removed ${item}`),
    "vault.reveal": async ({ item, field }) => {
      if (isHostOnlyField(field)) return { ok: false, message: `${item}/${field} is part of a sign-in: tokens are never shown. Sign out and in again in the API's settings to replace them.` };
      const revealed = vault.reveal(item, field);
      return revealed.ok ? { ok: true, value: revealed.value } : { ok: false, message: revealed.message };
    },
  };
}

function ack(update: VaultUpdate, message: string): Ack {
  return update.ok ? { ok: true, message } : { ok: false, message: update.message };
}
