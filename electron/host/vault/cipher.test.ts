import { chmodSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AesGcmCipher } from "./cipher.ts";
import { decodeKey, loadVaultKey } from "./key.ts";

const CANARY = "canary-3f9a7c21-secret";
const tempDir = () => mkdtempSync(join(tmpdir(), "vault-key-"));

describe("AesGcmCipher", () => {
  const cipher = new AesGcmCipher(Buffer.alloc(32, 7));

  it("round-trips a value and never stores it readably", () => {
    const sealed = cipher.encrypt(Buffer.from(CANARY));
    expect(sealed.includes(Buffer.from(CANARY))).toBe(false);
    expect(cipher.decrypt(sealed).toString()).toBe(CANARY);
  });

  it("uses a fresh IV for every value", () => {
    const a = cipher.encrypt(Buffer.from(CANARY));
    const b = cipher.encrypt(Buffer.from(CANARY));
    expect(a.subarray(0, 12).equals(b.subarray(0, 12))).toBe(false);
    expect(a.equals(b)).toBe(false);
  });

  it("refuses an altered value or another key", () => {
    const sealed = cipher.encrypt(Buffer.from(CANARY));
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => cipher.decrypt(altered)).toThrow(/authentication failed/);
    expect(() => new AesGcmCipher(Buffer.alloc(32, 8)).decrypt(sealed)).toThrow(/authentication failed/);
    expect(() => cipher.decrypt(Buffer.alloc(5))).toThrow(/too short/);
  });

  it("names its key without revealing it", () => {
    expect(cipher.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(cipher.keyId).toBe(new AesGcmCipher(Buffer.alloc(32, 7)).keyId);
    expect(cipher.keyId).not.toBe(new AesGcmCipher(Buffer.alloc(32, 8)).keyId);
  });
});

describe("decodeKey", () => {
  const key = Buffer.alloc(32, 0xab);
  it("accepts 32 bytes as hex, base64 or base64url", () => {
    expect(decodeKey(key.toString("hex"))).toEqual(key);
    expect(decodeKey(`${key.toString("base64")}\n`)).toEqual(key);
    expect(decodeKey(Buffer.alloc(32, 0xfb).toString("base64url"))).toEqual(Buffer.alloc(32, 0xfb));
  });
  it("rejects anything else", () => {
    expect(decodeKey("abc")).toBeUndefined();
    expect(decodeKey(Buffer.alloc(16).toString("hex"))).toBeUndefined();
    expect(decodeKey(Buffer.alloc(31).toString("base64"))).toBeUndefined();
    expect(decodeKey(key.toString("hex").replace(/.$/, "z"))).toBeUndefined();
  });
});

describe("loadVaultKey", () => {
  it("creates an owner-only key file on first use and reuses it", () => {
    const dir = tempDir();
    const first = loadVaultKey({ dataDir: dir, env: {} });
    expect(first.ok).toBe(true);
    expect(statSync(join(dir, "vault.key")).mode & 0o777).toBe(0o600);
    const second = loadVaultKey({ dataDir: dir, env: {} });
    expect(second.ok && first.ok && second.key.equals(first.key)).toBe(true);
  });

  it("refuses a key file others can read, saying how to fix it", () => {
    const dir = tempDir();
    loadVaultKey({ dataDir: dir, env: {} });
    chmodSync(join(dir, "vault.key"), 0o644);
    const result = loadVaultKey({ dataDir: dir, env: {} });
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/can be read by other users \(mode 0644\).*chmod 600 '.*vault\.key'/) });
    chmodSync(join(dir, "vault.key"), 0o640);
    expect(loadVaultKey({ dataDir: dir, env: {} }).ok).toBe(false);
  });

  it("refuses a key file that is a symlink or holds no key, without printing its contents", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "elsewhere"), "x");
    symlinkSync(join(dir, "elsewhere"), join(dir, "vault.key"));
    expect(loadVaultKey({ dataDir: dir, env: {} })).toEqual({ ok: false, message: expect.stringMatching(/not a regular file/) });

    const garbage = tempDir();
    writeFileSync(join(garbage, "vault.key"), CANARY, { mode: 0o600 });
    const result = loadVaultKey({ dataDir: garbage, env: {} });
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/does not hold a 32-byte key/) });
    expect(JSON.stringify(result)).not.toContain(CANARY);
  });

  it("prefers WORKBENCH_VAULT_KEY and then creates no file", () => {
    const dir = tempDir();
    const key = Buffer.alloc(32, 3);
    const result = loadVaultKey({ dataDir: dir, env: { WORKBENCH_VAULT_KEY: key.toString("base64") } });
    expect(result).toEqual({ ok: true, key, source: "WORKBENCH_VAULT_KEY" });
    expect(() => readFileSync(join(dir, "vault.key"))).toThrow();
  });

  it("explains a malformed WORKBENCH_VAULT_KEY without echoing it", () => {
    const result = loadVaultKey({ dataDir: tempDir(), env: { WORKBENCH_VAULT_KEY: CANARY } });
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/WORKBENCH_VAULT_KEY must be 32 bytes .*base64.*hex/) });
    expect(JSON.stringify(result)).not.toContain(CANARY);
  });
});
