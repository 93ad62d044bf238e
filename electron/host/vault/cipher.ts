/**
 * How vault values are sealed at rest. The vault only sees this interface, so
 * the Electron app can plug in `safeStorage` (OS keychain) while `workbench
 * serve` and the CLI use AES-256-GCM with an owner-only key file.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { loadVaultKey, type VaultKeyInputs } from "./key.ts";

export interface SecretCipher {
  /** Stored beside each value, so a value sealed by another cipher is reported as such. */
  readonly id: string;
  /** Names the key in use without revealing it; lets "wrong key" be told apart from "altered". */
  readonly keyId?: string;
  /**
   * True when sealed values are readable by anyone who can read the file
   * (Electron safeStorage's `basic_text` backend on Linux without a keyring).
   * The vault refuses such a cipher unless the person explicitly accepted it.
   */
  readonly plaintextFallback?: boolean;
  encrypt(plain: Buffer): Buffer;
  /** Throws when the value cannot be opened (wrong key, altered bytes). */
  decrypt(sealed: Buffer): Buffer;
}

export const AES_GCM_CIPHER_ID = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM; sealed layout: 12-byte random IV, 16-byte auth tag, ciphertext. */
export class AesGcmCipher implements SecretCipher {
  readonly id = AES_GCM_CIPHER_ID;
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new RangeError(`an AES-256 key is 32 bytes, got ${key.length}`);
    this.#key = Buffer.from(key);
    this.keyId = createHmac("sha256", this.#key).update("codemode-workbench vault key id").digest("hex").slice(0, 16);
  }

  /** The key from WORKBENCH_VAULT_KEY, else `<dataDir>/vault.key` (created owner-only on first use). */
  static open(inputs: VaultKeyInputs): { ok: true; cipher: AesGcmCipher; source: string } | { ok: false; message: string } {
    const loaded = loadVaultKey(inputs);
    if (!loaded.ok) return loaded;
    return { ok: true, cipher: new AesGcmCipher(loaded.key), source: loaded.source };
  }

  encrypt(plain: Buffer): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  decrypt(sealed: Buffer): Buffer {
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error("the sealed value is too short to be AES-256-GCM");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new Error("authentication failed: the stored value was altered or sealed with another key");
    }
  }
}
