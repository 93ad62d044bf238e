/**
 * vault.json on disk: parse, validate, write atomically (temp file + rename,
 * owner-only), and move a file we cannot understand aside instead of deleting
 * it. Field records are kept as raw JSON here: a record the vault cannot open
 * is reported by the vault, and a later write carries it over byte for byte.
 */
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync, openSync, fsyncSync, closeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { JsonValue } from "../../../shared/json.ts";
import { vaultNameProblem } from "./names.ts";

export const VAULT_FILE = "vault.json";
export const VAULT_FORMAT = 1;

export interface StoredItem {
  allowApis: string[];
  /** Field name → sealed record (`{cipher, keyId, sealed}`), as stored. */
  fields: Map<string, JsonValue>;
}

export interface VaultDocument {
  items: Map<string, StoredItem>;
}

export type LoadedDocument =
  | { ok: true; doc: VaultDocument; /** Set when an unreadable file was moved aside. */ notice?: string }
  | { ok: false; reason: "newer-format" | "io"; message: string };

export function emptyDocument(): VaultDocument {
  return { items: new Map() };
}

export function loadDocument(dataDir: string): LoadedDocument {
  const path = join(dataDir, VAULT_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: true, doc: emptyDocument() };
    return { ok: false, reason: "io", message: `cannot read ${path}: ${code ?? "unknown error"}` };
  }
  const parsed = parseDocument(text);
  if (parsed.ok) return { ok: true, doc: parsed.doc };
  if (parsed.newer) return { ok: false, reason: "newer-format", message: `${path} ${parsed.problem}` };
  let aside: string;
  try {
    aside = moveAside(path);
  } catch (err) {
    return { ok: false, reason: "io", message: `${path} is unreadable (${parsed.problem}) and could not be moved aside: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}` };
  }
  return {
    ok: true,
    doc: emptyDocument(),
    notice: `${path} was unreadable (${parsed.problem}); it was kept as ${aside} and the vault starts empty. Restore it by fixing that file and moving it back.`,
  };
}

type Parsed = { ok: true; doc: VaultDocument } | { ok: false; problem: string; newer?: boolean };

export function parseDocument(text: string): Parsed {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: `not valid JSON: ${(err as Error).message}` };
  }
  if (!isObject(raw)) return { ok: false, problem: "the top level is not a JSON object" };
  if (typeof raw.format === "number" && raw.format > VAULT_FORMAT) {
    return { ok: false, newer: true, problem: `was written by a newer workbench (format ${raw.format}; this one reads format ${VAULT_FORMAT}); upgrade the workbench` };
  }
  if (raw.format !== VAULT_FORMAT) return { ok: false, problem: `"format" must be ${VAULT_FORMAT}` };
  if (!isObject(raw.items)) return { ok: false, problem: `"items" must be an object` };
  const doc = emptyDocument();
  for (const [itemName, rawItem] of Object.entries(raw.items)) {
    const where = `items.${itemName}`;
    const nameProblem = vaultNameProblem("item", itemName);
    if (nameProblem) return { ok: false, problem: `${where}: ${nameProblem}` };
    if (!isObject(rawItem)) return { ok: false, problem: `${where} must be an object` };
    const { allowApis, fields } = rawItem;
    if (!Array.isArray(allowApis) || !allowApis.every((api) => typeof api === "string")) {
      return { ok: false, problem: `${where}.allowApis must be an array of API names` };
    }
    if (!isObject(fields)) return { ok: false, problem: `${where}.fields must be an object` };
    const item: StoredItem = { allowApis: [...allowApis], fields: new Map() };
    for (const [fieldName, record] of Object.entries(fields)) {
      const fieldProblem = vaultNameProblem("field", fieldName);
      if (fieldProblem) return { ok: false, problem: `${where}.fields.${fieldName}: ${fieldProblem}` };
      item.fields.set(fieldName, record as JsonValue);
    }
    doc.items.set(itemName, item);
  }
  return { ok: true, doc };
}

export function serializeDocument(doc: VaultDocument): string {
  const items: Record<string, JsonValue> = {};
  for (const name of [...doc.items.keys()].sort()) {
    const item = doc.items.get(name)!;
    const fields: Record<string, JsonValue> = {};
    for (const field of [...item.fields.keys()].sort()) fields[field] = item.fields.get(field)!;
    items[name] = { allowApis: [...item.allowApis].sort(), fields };
  }
  return `${JSON.stringify({ format: VAULT_FORMAT, items }, null, 2)}\n`;
}

/** Temp file (owner-only) + fsync + rename: readers see the old file or the new one, never half of one. */
export function writeDocument(dataDir: string, doc: VaultDocument): void {
  const path = join(dataDir, VAULT_FILE);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, serializeDocument(doc), { mode: 0o600, flag: "wx" });
    const fd = openSync(temp, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed.
    }
    throw err;
  }
}

function moveAside(path: string): string {
  for (let n = 1; ; n++) {
    const aside = `${path}.corrupt-${n}`;
    if (!existsSync(aside)) {
      renameSync(path, aside);
      return aside;
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
