/**
 * A person's sign-in, kept in the vault under the API's item: the access
 * token, the refresh token and a record of the sign-in (who, which scopes,
 * until when, where the tokens come from and where they may go), each a
 * sealed field (`notes/oauth.access_token`, ...). Because they are vault
 * values, every redactor knows them from the start; because their fields are
 * host-only (vault/names.ts), programs never see them, not even by reference.
 */
import { z } from "zod";
import { HOST_ONLY_FIELD_PREFIX, vaultLabel } from "../vault/names.ts";
import type { Vault, VaultUpdate } from "../vault/vault.ts";
import type { SignInMethod } from "./setup.ts";

export const ACCESS_FIELD = `${HOST_ONLY_FIELD_PREFIX}access_token`;
export const REFRESH_FIELD = `${HOST_ONLY_FIELD_PREFIX}refresh_token`;
export const RECORD_FIELD = `${HOST_ONLY_FIELD_PREFIX}sign_in`;
const FIELDS = [ACCESS_FIELD, REFRESH_FIELD, RECORD_FIELD];

const signInRecord = z.object({
  format: z.literal(1),
  api: z.string(),
  method: z.enum(["authorizationCode", "deviceAuthorization"]),
  issuer: z.string(),
  tokenEndpoint: z.string(),
  revocationEndpoint: z.string().optional(),
  clientId: z.string(),
  /** The API's base URL at sign-in: the tokens are sent nowhere else. */
  baseUrl: z.string(),
  /** Scopes the server granted (or, when it did not say, those asked for). */
  scopes: z.array(z.string()),
  /** Who signed in, when the server said (an ID token's name, email or subject). */
  who: z.string().optional(),
  signedInAt: z.string(),
  /** When the access token expires; absent when the server gave no lifetime. */
  expiresAt: z.string().optional(),
  refreshedAt: z.string().optional(),
  /** Set when the server refused to refresh: the person must sign in again. */
  expired: z.object({ at: z.string(), why: z.string() }).optional(),
});
export type SignInRecord = z.infer<typeof signInRecord>;

export interface StoredSignIn {
  record: SignInRecord;
  accessToken: string;
  refreshToken?: string;
}

export type ReadSignIn = { kind: "none" } | { kind: "unreadable"; why: string } | { kind: "ok"; signIn: StoredSignIn };

export function readSignIn(vault: Pick<Vault, "reveal">, api: string): ReadSignIn {
  const record = vault.reveal(api, RECORD_FIELD);
  if (!record.ok) return record.reason === "missing" ? { kind: "none" } : { kind: "unreadable", why: record.message };
  let parsed: SignInRecord;
  try {
    parsed = signInRecord.parse(JSON.parse(record.value));
  } catch {
    return { kind: "unreadable", why: `${vaultLabel(api, RECORD_FIELD)} is not a sign-in record this workbench understands` };
  }
  const access = vault.reveal(api, ACCESS_FIELD);
  if (!access.ok) return { kind: "unreadable", why: access.message };
  const refresh = vault.reveal(api, REFRESH_FIELD);
  return { kind: "ok", signIn: { record: parsed, accessToken: access.value, ...(refresh.ok ? { refreshToken: refresh.value } : {}) } };
}

/** Stores a sign-in (replacing any earlier one) in one vault write; a refresh token is kept unless a new one came. */
export function writeSignIn(vault: Pick<Vault, "setFields">, signIn: StoredSignIn, keepRefresh = false): VaultUpdate {
  const values: Record<string, string> = { [ACCESS_FIELD]: signIn.accessToken, [RECORD_FIELD]: JSON.stringify(signIn.record) };
  if (signIn.refreshToken) values[REFRESH_FIELD] = signIn.refreshToken;
  const remove = signIn.refreshToken || keepRefresh ? [] : [REFRESH_FIELD];
  return vault.setFields(signIn.record.api, values, { allowApis: [signIn.record.api], remove });
}

/** Updates only the record (marks it expired), leaving the tokens as they are. */
export function writeRecord(vault: Pick<Vault, "setFields">, record: SignInRecord): VaultUpdate {
  return vault.setFields(record.api, { [RECORD_FIELD]: JSON.stringify(record) });
}

/** Deletes the sign-in's fields; the item's other fields stay, and an item left empty goes. */
export function deleteSignIn(vault: Pick<Vault, "setFields">, api: string): VaultUpdate {
  return vault.setFields(api, {}, { remove: FIELDS });
}

export function newRecord(fields: Omit<SignInRecord, "format">): SignInRecord {
  return { format: 1, ...fields };
}

export type { SignInMethod };
