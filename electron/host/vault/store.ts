/**
 * vault.json on disk, through the common JSON-file store (parse, validate,
 * atomic owner-only write, a file we cannot understand moved aside instead of
 * deleted, one from a newer workbench left alone). Field records are kept as
 * raw JSON here: a record the vault cannot open is reported by the vault, and
 * a later write carries it over byte for byte. An item whose shape is wrong
 * is kept the same way (raw, with the reason), so one bad item never costs
 * the others: the rest of the vault opens, and every write keeps it until the
 * person removes it.
 */
import { join } from "node:path";
import { z } from "zod";
import type { JsonValue } from "../../../shared/json.ts";
import { inspectJsonFile, keepCopyOnce, readJsonFile, writeJsonFile, type JsonFileSpec } from "../common/json-file.ts";
import { vaultNameProblem } from "./names.ts";

export const VAULT_FILE = "vault.json";
export const VAULT_FORMAT = 1;

export interface StoredItem {
  allowApis: string[];
  /** Field name → sealed record (`{cipher, keyId, sealed}`), as stored. */
  fields: Map<string, JsonValue>;
}

export interface DamagedItem {
  /** The item exactly as stored. */
  raw: JsonValue;
  problem: string;
}

export interface VaultDocument {
  items: Map<string, StoredItem>;
  /** Items whose shape is wrong: kept as found, never decrypted, written back unchanged. */
  damaged: Map<string, DamagedItem>;
}

export type LoadedDocument =
  | { ok: true; doc: VaultDocument; /** Set when an unreadable file was moved aside. */ notice?: string }
  | { ok: false; reason: "newer-format" | "io"; message: string };

const vaultDocument = z.object({ format: z.literal(VAULT_FORMAT), items: z.record(z.string(), z.unknown()) });

function vaultFile(dataDir: string): JsonFileSpec<z.infer<typeof vaultDocument>> {
  return { path: join(dataDir, VAULT_FILE), schema: vaultDocument, format: VAULT_FORMAT };
}

export function emptyDocument(): VaultDocument {
  return { items: new Map(), damaged: new Map() };
}

export function loadDocument(dataDir: string): LoadedDocument {
  const path = join(dataDir, VAULT_FILE);
  let read;
  try {
    read = readJsonFile(vaultFile(dataDir));
  } catch (err) {
    return { ok: false, reason: "io", message: `${path} is unreadable and could not be moved aside: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}` };
  }
  switch (read.status) {
    case "missing":
      return { ok: true, doc: emptyDocument() };
    case "newer":
      return { ok: false, reason: "newer-format", message: `${path}: ${read.problem}` };
    case "unreadable":
      return { ok: false, reason: "io", message: `cannot read ${path}: ${read.problem}` };
    case "moved-aside":
      return {
        ok: true,
        doc: emptyDocument(),
        notice: `${path} was unreadable (${read.problem}); it was kept as ${read.keptAt} and the vault starts empty. Restore it by fixing that file and moving it back.`,
      };
    case "ok": {
      const doc = documentFrom(read.value.items);
      if (doc.damaged.size > 0) keepCopyOnce(path, JSON.stringify([...doc.damaged.values()].map((d) => d.raw)));
      return { ok: true, doc };
    }
  }
}

/** The document as stored, changing nothing on disk (for `workbench doctor`). */
export function inspectDocument(dataDir: string): ReturnType<typeof inspectJsonFile<VaultDocument>> {
  const state = inspectJsonFile(vaultFile(dataDir));
  return state.status === "ok" ? { status: "ok", value: documentFrom(state.value.items), text: state.text } : state;
}

/** What a person should hear about damaged items, with the command that removes each. */
export function damagedItemNotices(doc: VaultDocument): string[] {
  return [...doc.damaged].map(
    ([name, item]) => `vault item "${name}" in ${VAULT_FILE} cannot be used (${item.problem}); it is kept as found. Remove it with \`workbench vault remove ${name}\` and set it again, or fix the file`,
  );
}

function documentFrom(items: Record<string, unknown>): VaultDocument {
  const doc = emptyDocument();
  for (const [itemName, rawItem] of Object.entries(items)) {
    const parsed = parseItem(itemName, rawItem);
    if (typeof parsed === "string") doc.damaged.set(itemName, { raw: rawItem as JsonValue, problem: parsed });
    else doc.items.set(itemName, parsed);
  }
  return doc;
}

/** The item, or why it cannot be used. */
function parseItem(itemName: string, rawItem: unknown): StoredItem | string {
  const where = `items.${itemName}`;
  const nameProblem = vaultNameProblem("item", itemName);
  if (nameProblem) return `${where}: ${nameProblem}`;
  if (!isObject(rawItem)) return `${where} must be an object`;
  const { allowApis, fields } = rawItem;
  if (!Array.isArray(allowApis) || !allowApis.every((api) => typeof api === "string")) return `${where}.allowApis must be an array of API names`;
  if (!isObject(fields)) return `${where}.fields must be an object`;
  const item: StoredItem = { allowApis: [...allowApis], fields: new Map() };
  for (const [fieldName, record] of Object.entries(fields)) {
    const fieldProblem = vaultNameProblem("field", fieldName);
    if (fieldProblem) return `${where}.fields.${fieldName}: ${fieldProblem}`;
    item.fields.set(fieldName, record as JsonValue);
  }
  return item;
}

export function serializeDocument(doc: VaultDocument): string {
  return `${JSON.stringify(documentJson(doc), null, 2)}\n`;
}

function documentJson(doc: VaultDocument): JsonValue {
  const items: Record<string, JsonValue> = {};
  for (const name of [...new Set([...doc.items.keys(), ...doc.damaged.keys()])].sort()) {
    const item = doc.items.get(name);
    if (!item) {
      items[name] = doc.damaged.get(name)!.raw;
      continue;
    }
    const fields: Record<string, JsonValue> = {};
    for (const field of [...item.fields.keys()].sort()) fields[field] = item.fields.get(field)!;
    items[name] = { allowApis: [...item.allowApis].sort(), fields };
  }
  return { format: VAULT_FORMAT, items };
}

/** Temp file (owner-only) + fsync + rename: readers see the old file or the new one, never half of one. */
export function writeDocument(dataDir: string, doc: VaultDocument): void {
  writeJsonFile(join(dataDir, VAULT_FILE), documentJson(doc));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
