/**
 * The vault: named items with fields (`github/token`), each item with the APIs
 * its values may be sent to, persisted encrypted in `<dataDir>/vault.json`.
 *
 * Bruno's and Insomnia's most common complaint is secrets that vanish after a
 * failed decrypt, so a value this process cannot open is reported (in `list`,
 * `reveal`) and kept exactly as stored through every later write. Every change
 * re-reads the file first, so the CLI and the app editing the same vault do not
 * erase each other's changes.
 */
import { apiNameProblem } from "../../../shared/api-config.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { ensureDataDir } from "../data-dir.ts";
import { AesGcmCipher, type SecretCipher } from "./cipher.ts";
import { VAULT_KEY_ENV, VAULT_KEY_FILE } from "./key.ts";
import { HOST_ONLY_FIELD_PREFIX, isHostOnlyField, vaultLabel, vaultNameProblem } from "./names.ts";
import { MIN_SECRET_LENGTH } from "./redact.ts";
import { damagedItemNotices, loadDocument, serializeDocument, writeDocument, type VaultDocument } from "./store.ts";

export interface VaultOptions {
  /** Defaults to AES-256-GCM with WORKBENCH_VAULT_KEY or `<dataDir>/vault.key`. */
  cipher?: SecretCipher;
  env?: NodeJS.ProcessEnv;
  /** The person explicitly accepted a cipher that stores values readably (see SecretCipher.plaintextFallback). */
  acceptPlaintext?: boolean;
}

export type VaultOpenResult =
  | { ok: true; vault: Vault }
  | { ok: false; reason: "key" | "plaintext-refused" | "newer-format" | "io"; message: string };

export interface VaultFieldInfo {
  name: string;
  /** Why the value cannot be used, e.g. "cannot decrypt: ..."; absent when it can. */
  problem?: string;
}

export interface VaultItemInfo {
  name: string;
  allowApis: string[];
  fields: VaultFieldInfo[];
}

export type VaultReveal = { ok: true; value: string } | { ok: false; reason: "missing" | "undecryptable"; message: string };

export type VaultUpdate = { ok: true } | { ok: false; reason: "invalid" | "missing" | "newer-format" | "io"; message: string };

/** A value and the name it is redacted as (`item/field`). */
export interface VaultSecret {
  label: string;
  value: string;
}

type Opened = { ok: true; value: string } | { ok: false; message: string };

export class Vault {
  readonly dataDir: string;
  readonly #cipher: SecretCipher;
  #doc: VaultDocument;
  #serialized: string;
  #notices: string[] = [];
  #opened = new Map<string, Opened>();
  #listeners = new Set<() => void>();

  private constructor(dataDir: string, cipher: SecretCipher, doc: VaultDocument) {
    this.dataDir = dataDir;
    this.#cipher = cipher;
    this.#doc = doc;
    this.#serialized = serializeDocument(doc);
  }

  static open(dataDir: string, options: VaultOptions = {}): VaultOpenResult {
    try {
      ensureDataDir(dataDir);
    } catch (err) {
      return { ok: false, reason: "io", message: `cannot create the data directory ${dataDir}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}` };
    }
    let cipher = options.cipher;
    if (!cipher) {
      const opened = AesGcmCipher.open({ dataDir, env: options.env ?? process.env });
      if (!opened.ok) return { ok: false, reason: "key", message: opened.message };
      cipher = opened.cipher;
    }
    if (cipher.plaintextFallback && !options.acceptPlaintext) {
      return {
        ok: false,
        reason: "plaintext-refused",
        message: `the secret store "${cipher.id}" would keep vault values readable on disk; refusing to use it unless you explicitly accept plaintext storage`,
      };
    }
    const loaded = loadDocument(dataDir);
    if (!loaded.ok) return loaded;
    const vault = new Vault(dataDir, cipher, loaded.doc);
    if (loaded.notice) vault.#notices.push(loaded.notice);
    return { ok: true, vault };
  }

  /** Things the person should know that are not errors, e.g. an unreadable vault.json that was moved aside, or a damaged item kept as found. */
  notices(): string[] {
    return [...this.#notices, ...damagedItemNotices(this.#doc)];
  }

  /** Re-reads vault.json (after another process changed it); listeners run when something changed. */
  reload(): VaultUpdate {
    const loaded = loadDocument(this.dataDir);
    if (!loaded.ok) return loaded;
    if (loaded.notice) this.#notices.push(loaded.notice);
    this.#adopt(loaded.doc);
    return { ok: true };
  }

  list(): VaultItemInfo[] {
    return [...this.#doc.items.keys()].sort().map((name) => {
      const item = this.#doc.items.get(name)!;
      const fields = [...item.fields.keys()].sort().map((field): VaultFieldInfo => {
        const opened = this.#openRecord(item.fields.get(field)!);
        return opened.ok ? { name: field } : { name: field, problem: opened.message };
      });
      return { name, allowApis: [...item.allowApis].sort(), fields };
    });
  }

  /** Stores a value; `allowApis` are added to the APIs the item may be sent to. */
  set(item: string, field: string, value: string, options: { allowApis?: string[] } = {}): VaultUpdate {
    const problem = vaultNameProblem("item", item) ?? vaultNameProblem("field", field) ?? hostOnlyProblem(field) ?? valueProblem(value) ?? apisProblem(options.allowApis ?? []);
    if (problem) return { ok: false, reason: "invalid", message: `cannot set ${vaultLabel(item, field)}: ${problem}` };
    let sealed: string;
    try {
      sealed = this.#cipher.encrypt(Buffer.from(value, "utf8")).toString("base64");
    } catch (err) {
      return { ok: false, reason: "io", message: `cannot encrypt ${vaultLabel(item, field)}: ${(err as Error).message}` };
    }
    const record: JsonValue = this.#cipher.keyId === undefined ? { cipher: this.#cipher.id, sealed } : { cipher: this.#cipher.id, keyId: this.#cipher.keyId, sealed };
    return this.#change((doc) => {
      if (doc.damaged.has(item)) return damaged(item, doc);
      const stored = doc.items.get(item) ?? { allowApis: [], fields: new Map() };
      stored.fields.set(field, record);
      stored.allowApis = [...new Set([...stored.allowApis, ...(options.allowApis ?? [])])];
      doc.items.set(item, stored);
      return { ok: true };
    });
  }

  /**
   * Stores several fields of one item in one write (a sign-in's tokens and
   * their record), so a reader never sees half of them. `remove` lists fields
   * to delete in the same write.
   */
  setFields(item: string, values: Record<string, string>, options: { allowApis?: string[]; remove?: string[] } = {}): VaultUpdate {
    const sealed = new Map<string, JsonValue>();
    for (const [field, value] of Object.entries(values)) {
      const problem = vaultNameProblem("item", item) ?? vaultNameProblem("field", field) ?? valueProblem(value) ?? apisProblem(options.allowApis ?? []);
      if (problem) return { ok: false, reason: "invalid", message: `cannot set ${vaultLabel(item, field)}: ${problem}` };
      try {
        const box = this.#cipher.encrypt(Buffer.from(value, "utf8")).toString("base64");
        sealed.set(field, this.#cipher.keyId === undefined ? { cipher: this.#cipher.id, sealed: box } : { cipher: this.#cipher.id, keyId: this.#cipher.keyId, sealed: box });
      } catch (err) {
        return { ok: false, reason: "io", message: `cannot encrypt ${vaultLabel(item, field)}: ${(err as Error).message}` };
      }
    }
    return this.#change((doc) => {
      if (doc.damaged.has(item)) return damaged(item, doc);
      const stored = doc.items.get(item) ?? { allowApis: [], fields: new Map() };
      for (const field of options.remove ?? []) stored.fields.delete(field);
      for (const [field, record] of sealed) stored.fields.set(field, record);
      stored.allowApis = [...new Set([...stored.allowApis, ...(options.allowApis ?? [])])];
      if (stored.fields.size === 0) doc.items.delete(item);
      else doc.items.set(item, stored);
      return { ok: true };
    });
  }

  /** Replaces the APIs an item may be sent to (`[]`: none). */
  setAllowedApis(item: string, apis: string[]): VaultUpdate {
    const problem = apisProblem(apis);
    if (problem) return { ok: false, reason: "invalid", message: `cannot change the APIs of ${item}: ${problem}` };
    return this.#change((doc) => {
      const stored = doc.items.get(item);
      if (!stored) return doc.damaged.has(item) ? damaged(item, doc) : missing(`item "${item}"`);
      stored.allowApis = [...new Set(apis)];
      return { ok: true };
    });
  }

  /** Removes one field, or the whole item when `field` is omitted (also an item kept as damaged). */
  remove(item: string, field?: string): VaultUpdate {
    return this.#change((doc) => {
      if (field === undefined && doc.damaged.delete(item)) return { ok: true };
      if (doc.damaged.has(item)) return damaged(item, doc);
      const stored = doc.items.get(item);
      if (!stored) return missing(`item "${item}"`);
      if (field === undefined) {
        doc.items.delete(item);
        return { ok: true };
      }
      if (!stored.fields.delete(field)) return missing(`field ${vaultLabel(item, field)}`);
      return { ok: true };
    });
  }

  reveal(item: string, field: string): VaultReveal {
    const record = this.#doc.items.get(item)?.fields.get(field);
    if (record === undefined) return { ok: false, reason: "missing", message: `the vault has no ${vaultLabel(item, field)}` };
    const opened = this.#openRecord(record);
    if (!opened.ok) return { ok: false, reason: "undecryptable", message: `${vaultLabel(item, field)}: ${opened.message}` };
    return opened;
  }

  isAllowed(item: string, api: string): boolean {
    return this.#doc.items.get(item)?.allowApis.includes(api) ?? false;
  }

  allowedApis(item: string): string[] | undefined {
    const stored = this.#doc.items.get(item);
    return stored ? [...stored.allowApis].sort() : undefined;
  }

  /** Every value this process can open, for redaction. */
  secrets(): VaultSecret[] {
    const out: VaultSecret[] = [];
    for (const [item, stored] of this.#doc.items) {
      for (const [field, record] of stored.fields) {
        const opened = this.#openRecord(record);
        if (opened.ok) out.push({ label: vaultLabel(item, field), value: opened.value });
      }
    }
    return out;
  }

  /** Runs `listener` after every change (ours or one found by `reload`); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #change(apply: (doc: VaultDocument) => VaultUpdate): VaultUpdate {
    // Start from the file as it is now, so a change made by another process survives ours.
    const loaded = loadDocument(this.dataDir);
    if (!loaded.ok) return loaded;
    if (loaded.notice) this.#notices.push(loaded.notice);
    const outcome = apply(loaded.doc);
    if (outcome.ok) {
      try {
        writeDocument(this.dataDir, loaded.doc);
      } catch (err) {
        return { ok: false, reason: "io", message: `cannot write the vault in ${this.dataDir}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}` };
      }
    }
    this.#adopt(loaded.doc);
    return outcome;
  }

  #adopt(doc: VaultDocument): void {
    const serialized = serializeDocument(doc);
    this.#doc = doc;
    if (serialized === this.#serialized) return;
    this.#serialized = serialized;
    this.#opened.clear();
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // A broken listener must not undo or block a change that is already on disk.
      }
    }
  }

  #openRecord(record: JsonValue): Opened {
    const key = JSON.stringify(record);
    let opened = this.#opened.get(key);
    if (!opened) {
      opened = this.#decrypt(record);
      this.#opened.set(key, opened);
    }
    return opened;
  }

  #decrypt(record: JsonValue): Opened {
    if (typeof record !== "object" || record === null || Array.isArray(record) || typeof record.cipher !== "string" || typeof record.sealed !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(record.sealed)) {
      return { ok: false, message: "cannot decrypt: the stored record is malformed (expected cipher and base64 sealed)" };
    }
    if (record.cipher !== this.#cipher.id) {
      return { ok: false, message: `cannot decrypt: it was sealed by "${record.cipher}" and this process uses "${this.#cipher.id}"; open the vault where it was set, or set it again` };
    }
    try {
      const plain = this.#cipher.decrypt(Buffer.from(record.sealed, "base64"));
      return { ok: true, value: new TextDecoder("utf-8", { fatal: true }).decode(plain) };
    } catch (err) {
      if (typeof record.keyId === "string" && this.#cipher.keyId !== undefined && record.keyId !== this.#cipher.keyId) {
        return {
          ok: false,
          message: `cannot decrypt: it was sealed with another key (key id ${record.keyId}; the current key is ${this.#cipher.keyId}). Use the key it was sealed with (${VAULT_KEY_ENV} or ${VAULT_KEY_FILE}), or set it again`,
        };
      }
      return { ok: false, message: `cannot decrypt: ${err instanceof TypeError ? "the decrypted bytes are not UTF-8 text" : (err as Error).message}` };
    }
  }
}

/** A person's `set` may not write a sign-in's fields: those come from the sign-in (setFields). */
function hostOnlyProblem(field: string): string | undefined {
  return isHostOnlyField(field) ? `fields named ${HOST_ONLY_FIELD_PREFIX}* hold a sign-in's tokens, which only a sign-in writes (workbench auth login)` : undefined;
}

function valueProblem(value: string): string | undefined {
  if (typeof value !== "string") return "the value must be a string";
  // A lone surrogate would silently become U+FFFD on the way to UTF-8 and back.
  if (/[\uD800-\uDFFF]/.test(value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) return "the value is not well-formed Unicode text";
  if (value.length < MIN_SECRET_LENGTH) return `the value is shorter than ${MIN_SECRET_LENGTH} characters, too short to keep out of logs reliably`;
  return undefined;
}

function apisProblem(apis: string[]): string | undefined {
  for (const api of apis) {
    const problem = apiNameProblem(api);
    if (problem) return problem;
  }
  return undefined;
}

function damaged(item: string, doc: VaultDocument): VaultUpdate {
  const problem = doc.damaged.get(item)!.problem;
  return { ok: false, reason: "invalid", message: `the vault item "${item}" is damaged in vault.json (${problem}) and is kept as found; remove the whole item with \`workbench vault remove ${item}\` first` };
}

function missing(name: string): VaultUpdate {
  return { ok: false, reason: "missing", message: `the vault has no ${name}` };
}
