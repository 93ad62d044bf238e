/**
 * Vault references: inside a program `vault.github.token` is the string
 * `⟦vault:github/token⟧`, never the secret. The proxy substitutes references
 * in a call's arguments (anywhere in a string: `"Bearer ⟦vault:github/token⟧"`,
 * query values, headers, bodies, even keys) only when the call goes to an API
 * the item allows; otherwise the call fails `VaultDenied` and nothing is sent.
 * The brackets (U+27E6, U+27E7) do not occur in ordinary API traffic, so a
 * reference cannot be mistaken for data.
 */
import type { JsonObject, JsonValue } from "../../../shared/json.ts";
import { isHostOnlyField, vaultLabel, vaultNameProblem } from "./names.ts";
import type { VaultItemInfo, VaultReveal } from "./vault.ts";

export interface VaultReference {
  item: string;
  field: string;
}

/** The part of the vault substitution needs; `Vault` provides it. */
export interface VaultReader {
  list(): VaultItemInfo[];
  reveal(item: string, field: string): VaultReveal;
  isAllowed(item: string, api: string): boolean;
}

export type Substitution =
  | { ok: true; value: JsonValue; used: VaultReference[] }
  | { ok: false; error: { name: "VaultDenied"; message: string } };

/** Anything between the brackets, so a malformed reference is refused rather than sent as text. */
const REFERENCE = /⟦vault:([^⟧]*)⟧/g;

export function referenceText(ref: VaultReference): string {
  return `⟦vault:${vaultLabel(ref.item, ref.field)}⟧`;
}

/** The `vault` global a program sees: `{github: {token: "⟦vault:github/token⟧"}}`. */
export function vaultGlobal(vault: Pick<VaultReader, "list">): JsonObject {
  const global: JsonObject = {};
  for (const item of vault.list()) {
    const fields: JsonObject = {};
    for (const field of item.fields) if (!isHostOnlyField(field.name)) fields[field.name] = referenceText({ item: item.name, field: field.name });
    // An item that holds only a sign-in is not the program's business at all.
    if (Object.keys(fields).length || item.fields.length === 0) global[item.name] = fields;
  }
  return global;
}

/** Every well-formed reference in any string of `value` (keys included), each once, in order of appearance. */
export function findReferences(value: JsonValue): VaultReference[] {
  const found = new Map<string, VaultReference>();
  visitStrings(value, (text) => {
    for (const match of text.matchAll(REFERENCE)) {
      const ref = parseReference(match[1]!);
      if (ref) found.set(vaultLabel(ref.item, ref.field), ref);
    }
  });
  return [...found.values()];
}

/**
 * Replaces every reference in `value` with its secret, or refuses the whole
 * call (nothing substituted) if any reference is malformed, unknown, cannot be
 * decrypted, or belongs to an item that may not be sent to `api`. Messages name
 * the reference, never a value.
 */
export function substituteReferences(value: JsonValue, api: string, vault: VaultReader): Substitution {
  const secrets = new Map<string, string>();
  const used: VaultReference[] = [];
  let denial: string | undefined;
  visitStrings(value, (text) => {
    for (const match of text.matchAll(REFERENCE)) {
      if (denial !== undefined) return;
      const inner = match[1]!;
      if (secrets.has(inner)) continue;
      const ref = parseReference(inner);
      if (!ref) {
        denial = `${JSON.stringify(shorten(match[0]))} is not a vault reference: it must look like ⟦vault:item/field⟧ (names of letters, digits, "_", "." and "-")`;
        return;
      }
      const verdict = resolve(ref, api, vault);
      if (!verdict.ok) {
        denial = verdict.message;
        return;
      }
      secrets.set(inner, verdict.value);
      used.push(ref);
    }
  });
  if (denial !== undefined) return { ok: false, error: { name: "VaultDenied", message: `${denial}. Nothing was sent.` } };
  if (used.length === 0) return { ok: true, value, used };
  const replace = (text: string) => text.replace(REFERENCE, (whole, inner: string) => secrets.get(inner) ?? whole);
  return { ok: true, value: mapStrings(value, replace), used };
}

function resolve(ref: VaultReference, api: string, vault: VaultReader): { ok: true; value: string } | { ok: false; message: string } {
  const text = referenceText(ref);
  if (isHostOnlyField(ref.field)) return { ok: false, message: `${text} is part of a sign-in, which the workbench attaches to its API's calls itself; programs cannot send it` };
  const item = vault.list().find((candidate) => candidate.name === ref.item);
  if (!item) return { ok: false, message: `${text} names no vault item "${ref.item}"` };
  if (!item.fields.some((field) => field.name === ref.field)) {
    return { ok: false, message: `${text} names no field "${ref.field}" of vault item "${ref.item}" (it has: ${item.fields.map((f) => f.name).join(", ") || "no fields"})` };
  }
  if (!vault.isAllowed(ref.item, api)) {
    const allowed = item.allowApis.length ? `it may be sent only to: ${item.allowApis.join(", ")}` : "it may be sent to no API yet";
    return { ok: false, message: `${text} may not be sent to API "${api}" (${allowed}); a person can allow it in the vault settings` };
  }
  const revealed = vault.reveal(ref.item, ref.field);
  if (!revealed.ok) return { ok: false, message: `${text} cannot be used: ${revealed.message}` };
  return { ok: true, value: revealed.value };
}

function parseReference(inner: string): VaultReference | undefined {
  const slash = inner.indexOf("/");
  if (slash < 0) return undefined;
  const item = inner.slice(0, slash);
  const field = inner.slice(slash + 1);
  if (vaultNameProblem("item", item) || vaultNameProblem("field", field)) return undefined;
  return { item, field };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function visitStrings(value: JsonValue, visit: (text: string) => void): void {
  if (typeof value === "string") visit(value);
  else if (Array.isArray(value)) for (const item of value) visitStrings(item, visit);
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      visit(key);
      visitStrings(item, visit);
    }
  }
}

function mapStrings(value: JsonValue, map: (text: string) => string): JsonValue {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, map(key), { value: mapStrings(item, map), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
