/**
 * Where the AES-256-GCM vault key comes from: `WORKBENCH_VAULT_KEY` (base64 or
 * hex of 32 bytes) when set, else `<dataDir>/vault.key`, created owner-only on
 * first use. A key file that others can read is refused rather than used: the
 * key beside the ciphertexts is the whole protection, so a readable key means
 * readable secrets.
 */
import { linkSync, lstatSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

export const VAULT_KEY_ENV = "WORKBENCH_VAULT_KEY";
export const VAULT_KEY_FILE = "vault.key";

export interface VaultKeyInputs {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Defaults to process.platform; POSIX permission checks are skipped on Windows. */
  platform?: NodeJS.Platform;
}

export type VaultKeyResult = { ok: true; key: Buffer; source: string } | { ok: false; message: string };

export function loadVaultKey(inputs: VaultKeyInputs): VaultKeyResult {
  const fromEnv = (inputs.env ?? process.env)[VAULT_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    const key = decodeKey(fromEnv);
    if (!key) return { ok: false, message: `${VAULT_KEY_ENV} must be 32 bytes written as base64 (44 characters) or hex (64 characters); it is neither` };
    return { ok: true, key, source: VAULT_KEY_ENV };
  }
  const path = join(inputs.dataDir, VAULT_KEY_FILE);
  const existing = readKeyFile(path, inputs.platform ?? process.platform);
  if (existing) return existing;
  return createKeyFile(path, inputs.platform ?? process.platform);
}

/** base64 (standard or url-safe, padding optional) or hex of exactly 32 bytes. */
export function decodeKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(trimmed)) {
    const key = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (key.length === 32) return key;
  }
  return undefined;
}

/** undefined when there is no key file yet. */
function readKeyFile(path: string, platform: NodeJS.Platform): VaultKeyResult | undefined {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { ok: false, message: `cannot read the vault key file ${path}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}` };
  }
  if (!stats.isFile()) return { ok: false, message: `the vault key file ${path} is not a regular file (a symlink or a folder); replace it with the key file itself` };
  if (platform !== "win32") {
    if ((stats.mode & 0o077) !== 0) {
      const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
      return {
        ok: false,
        message: `the vault key file ${path} can be read by other users (mode ${mode}); it must be owner-only. Fix it with: chmod 600 '${path}'`,
      };
    }
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) {
      return { ok: false, message: `the vault key file ${path} belongs to another user (uid ${stats.uid}); it must belong to you (uid ${uid})` };
    }
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return { ok: false, message: `cannot read the vault key file ${path}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}` };
  }
  const key = decodeKey(text);
  if (!key) return { ok: false, message: `the vault key file ${path} does not hold a 32-byte key (base64 or hex); restore the original file, or set ${VAULT_KEY_ENV}` };
  return { ok: true, key, source: path };
}

/**
 * Writes a fresh key to a temp file, then links it into place: `link` fails if
 * another process got there first, so two processes starting together agree on
 * one key and nobody ever reads a half-written file.
 */
function createKeyFile(path: string, platform: NodeJS.Platform): VaultKeyResult {
  const key = randomBytes(32);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(temp, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return readKeyFile(path, platform) ?? { ok: false, message: `the vault key file ${path} vanished while opening it` };
      // Filesystems without hard links: exclusive create still never overwrites a key.
      writeFileSync(path, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    }
    return { ok: true, key, source: path };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return readKeyFile(path, platform) ?? { ok: false, message: `the vault key file ${path} vanished while opening it` };
    return { ok: false, message: `cannot create the vault key file ${path}: ${(err as NodeJS.ErrnoException).code ?? "unknown error"}` };
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone, or never written.
    }
  }
}
