/**
 * Names of vault items and fields (`github/token`). They end up as property
 * names in the sandbox's `vault` global and as keys of vault.json, so besides
 * the character set we refuse the few names that would reach an object's
 * prototype instead of an own property.
 */

export const VAULT_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
export const MAX_VAULT_NAME_LENGTH = 100;
const PROTOTYPE_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** Returns why `name` cannot name a vault item or field, or undefined when it can. */
export function vaultNameProblem(kind: "item" | "field", name: string): string | undefined {
  if (name === "") return `the ${kind} name is empty`;
  if (name.length > MAX_VAULT_NAME_LENGTH) return `the ${kind} name is longer than ${MAX_VAULT_NAME_LENGTH} characters`;
  if (!VAULT_NAME_PATTERN.test(name)) {
    return `the ${kind} name ${JSON.stringify(name)} may contain only letters, digits, "_", "." and "-"`;
  }
  if (PROTOTYPE_NAMES.has(name)) return `the ${kind} name "${name}" is reserved`;
  return undefined;
}

/** `github/token`: how people, labels and messages name one field. */
export function vaultLabel(item: string, field: string): string {
  return `${item}/${field}`;
}

/** Splits `item/field` (or `item` when the field is optional); undefined when malformed. */
export function parseVaultLabel(text: string): { item: string; field?: string } | undefined {
  const parts = text.split("/");
  if (parts.length > 2) return undefined;
  const [item, field] = parts as [string, string | undefined];
  return field === undefined ? { item } : { item, field };
}

/**
 * Fields the host keeps for itself: a person's OAuth sign-in (access and
 * refresh tokens, and the record of the sign-in) under the API's item. The
 * host attaches them to that API's calls; programs never see them, not even
 * as references, and cannot send them anywhere.
 */
export const HOST_ONLY_FIELD_PREFIX = "oauth.";

export function isHostOnlyField(field: string): boolean {
  return field.startsWith(HOST_ONLY_FIELD_PREFIX);
}
