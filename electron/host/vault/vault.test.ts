import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AesGcmCipher, type SecretCipher } from "./cipher.ts";
import { Vault, type VaultOptions } from "./vault.ts";

const CANARY = "canary-7d2e91b4-token";
const OTHER = "canary-other-55aa";
const tempDir = () => mkdtempSync(join(tmpdir(), "vault-"));

function open(dir: string, options: VaultOptions = { env: {} }): Vault {
  const opened = Vault.open(dir, options);
  if (!opened.ok) throw new Error(opened.message);
  return opened.vault;
}

function storedText(dir: string): string {
  return readFileSync(join(dir, "vault.json"), "utf8");
}

/** Flips one bit of the ciphertext of item/field in vault.json. */
function tamper(dir: string, item: string, field: string): string {
  const doc = JSON.parse(storedText(dir));
  const sealed = Buffer.from(doc.items[item].fields[field].sealed, "base64");
  sealed[sealed.length - 1]! ^= 1;
  doc.items[item].fields[field].sealed = sealed.toString("base64");
  writeFileSync(join(dir, "vault.json"), JSON.stringify(doc));
  return doc.items[item].fields[field].sealed;
}

describe("Vault", () => {
  it("stores values encrypted, owner-only, and reveals them", () => {
    const dir = tempDir();
    const vault = open(dir);
    expect(vault.set("github", "token", CANARY, { allowApis: ["github"] })).toEqual({ ok: true });
    expect(vault.reveal("github", "token")).toEqual({ ok: true, value: CANARY });
    expect(storedText(dir)).not.toContain(CANARY);
    expect(storedText(dir)).not.toContain(Buffer.from(CANARY).toString("base64"));
    expect(statSync(join(dir, "vault.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["vault.json", "vault.key"]);
    // A second process with the same key file reads it.
    expect(open(dir).reveal("github", "token")).toEqual({ ok: true, value: CANARY });
  });

  it("lists names and allowed APIs, never values", () => {
    const vault = open(tempDir());
    vault.set("github", "token", CANARY, { allowApis: ["github"] });
    vault.set("github", "user", OTHER, { allowApis: ["gists"] });
    expect(vault.list()).toEqual([{ name: "github", allowApis: ["gists", "github"], fields: [{ name: "token" }, { name: "user" }] }]);
    expect(JSON.stringify(vault.list())).not.toContain(CANARY);
    expect(vault.secrets()).toEqual([
      { label: "github/token", value: CANARY },
      { label: "github/user", value: OTHER },
    ]);
  });

  it("allows an item only to the APIs it names", () => {
    const vault = open(tempDir());
    vault.set("github", "token", CANARY, { allowApis: ["github"] });
    expect(vault.isAllowed("github", "github")).toBe(true);
    expect(vault.isAllowed("github", "petstore")).toBe(false);
    expect(vault.isAllowed("nothing", "github")).toBe(false);
    expect(vault.setAllowedApis("github", ["petstore"])).toEqual({ ok: true });
    expect(vault.isAllowed("github", "github")).toBe(false);
    expect(vault.isAllowed("github", "petstore")).toBe(true);
    expect(vault.setAllowedApis("nothing", ["x"])).toMatchObject({ ok: false, reason: "missing" });
  });

  it("refuses bad names, bad API names and too-short values, without echoing the value", () => {
    const vault = open(tempDir());
    for (const [item, field] of [["git hub", "token"], ["github", "to/ken"], ["__proto__", "x"], ["", "x"], ["github", "a".repeat(101)]] as const) {
      const result = vault.set(item, field, CANARY);
      expect(result).toMatchObject({ ok: false, reason: "invalid" });
      expect(JSON.stringify(result)).not.toContain(CANARY);
    }
    expect(vault.set("github", "token", CANARY, { allowApis: ["not an api"] })).toMatchObject({ ok: false, message: expect.stringMatching(/not a JavaScript identifier/) });
    expect(vault.set("github", "token", "abc")).toMatchObject({ ok: false, message: expect.stringMatching(/shorter than 4 characters/) });
    expect(vault.set("github", "token", "abc\uD800def")).toMatchObject({ ok: false, message: expect.stringMatching(/not well-formed Unicode/) });
    expect(vault.list()).toEqual([]);
  });

  it("removes a field or a whole item", () => {
    const vault = open(tempDir());
    vault.set("github", "token", CANARY);
    vault.set("github", "user", OTHER);
    expect(vault.remove("github", "user")).toEqual({ ok: true });
    expect(vault.reveal("github", "user")).toMatchObject({ ok: false, reason: "missing" });
    expect(vault.remove("github", "user")).toMatchObject({ ok: false, reason: "missing", message: "the vault has no field github/user" });
    expect(vault.remove("github")).toEqual({ ok: true });
    expect(vault.list()).toEqual([]);
  });

  it("reports a tampered value, keeps listing it, and keeps it through later writes", () => {
    const dir = tempDir();
    open(dir).set("github", "token", CANARY, { allowApis: ["github"] });
    const tampered = tamper(dir, "github", "token");
    const vault = open(dir);
    const reveal = vault.reveal("github", "token");
    expect(reveal).toMatchObject({ ok: false, reason: "undecryptable", message: expect.stringMatching(/github\/token: cannot decrypt: authentication failed/) });
    expect(vault.list()[0]!.fields).toEqual([{ name: "token", problem: expect.stringMatching(/^cannot decrypt/) }]);
    expect(vault.secrets()).toEqual([]);

    expect(vault.set("github", "user", OTHER)).toEqual({ ok: true });
    expect(JSON.parse(storedText(dir)).items.github.fields.token.sealed).toBe(tampered);
    expect(vault.list()[0]!.fields.map((f) => f.name)).toEqual(["token", "user"]);
  });

  it("tells a wrong WORKBENCH_VAULT_KEY apart from tampering", () => {
    const dir = tempDir();
    open(dir, { env: { WORKBENCH_VAULT_KEY: Buffer.alloc(32, 1).toString("hex") } }).set("github", "token", CANARY);
    const vault = open(dir, { env: { WORKBENCH_VAULT_KEY: Buffer.alloc(32, 2).toString("hex") } });
    expect(vault.reveal("github", "token")).toMatchObject({ ok: false, reason: "undecryptable", message: expect.stringMatching(/sealed with another key.*WORKBENCH_VAULT_KEY/) });
    expect(vault.set("github", "user", OTHER)).toEqual({ ok: true });
    expect(open(dir, { env: { WORKBENCH_VAULT_KEY: Buffer.alloc(32, 1).toString("hex") } }).reveal("github", "token")).toEqual({ ok: true, value: CANARY });
  });

  it("refuses to open with a bad key source", () => {
    const result = Vault.open(tempDir(), { env: { WORKBENCH_VAULT_KEY: CANARY } });
    expect(result).toMatchObject({ ok: false, reason: "key" });
    expect(JSON.stringify(result)).not.toContain(CANARY);
  });

  it("moves an unreadable vault.json aside, keeps it, and says so", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "vault.json"), "{ not json");
    const vault = open(dir);
    expect(vault.list()).toEqual([]);
    expect(vault.notices()).toEqual([expect.stringMatching(/vault\.json was unreadable \(it is not valid JSON.*kept as .*vault\.json\.unreadable-/)]);
    const kept = readdirSync(dir).filter((f) => f.startsWith("vault.json.unreadable-"));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(dir, kept[0]!), "utf8")).toBe("{ not json");
    expect(existsSync(join(dir, "vault.json"))).toBe(false);
  });

  it("keeps a damaged item as found, opens the others, and lets the person remove it", () => {
    const dir = tempDir();
    const vault = open(dir);
    vault.set("github", "token", CANARY, { allowApis: ["github"] });
    vault.set("other", "token", OTHER);
    const doc = JSON.parse(storedText(dir));
    doc.items.github.allowApis = "github"; // not an array
    const damagedItem = doc.items.github;
    writeFileSync(join(dir, "vault.json"), JSON.stringify(doc));

    const reopened = open(dir);
    expect(reopened.list().map((i) => i.name)).toEqual(["other"]);
    expect(reopened.reveal("other", "token")).toEqual({ ok: true, value: OTHER });
    expect(reopened.notices()).toEqual([expect.stringMatching(/vault item "github" in vault\.json cannot be used \(items\.github\.allowApis must be an array.*workbench vault remove github/)]);
    expect(reopened.set("github", "token", CANARY)).toMatchObject({ ok: false, reason: "invalid", message: expect.stringContaining("remove the whole item") });

    // Later writes keep it byte for byte; the file as found is copied once.
    expect(reopened.set("third", "token", "a-third-secret")).toEqual({ ok: true });
    open(dir);
    expect(JSON.parse(storedText(dir)).items.github).toEqual(damagedItem);
    expect(readdirSync(dir).filter((f) => f.startsWith("vault.json.damaged-"))).toHaveLength(1);
    expect(JSON.stringify(reopened.notices())).not.toContain(CANARY);

    expect(reopened.remove("github")).toEqual({ ok: true });
    expect(JSON.parse(storedText(dir)).items.github).toBeUndefined();
    expect(open(dir).notices()).toEqual([]);
  });

  it("refuses a vault.json from a newer workbench and leaves it alone", () => {
    const dir = tempDir();
    const newer = JSON.stringify({ format: 2, items: {} });
    writeFileSync(join(dir, "vault.json"), newer);
    expect(Vault.open(dir, { env: {} })).toMatchObject({ ok: false, reason: "newer-format", message: expect.stringMatching(/newer workbench/) });
    expect(storedText(dir)).toBe(newer);
  });

  it("does not erase changes another process made since it opened", () => {
    const dir = tempDir();
    const app = open(dir);
    const cli = open(dir);
    app.set("github", "token", CANARY);
    cli.set("stripe", "key", OTHER);
    app.set("github", "user", "octocat");
    expect(open(dir).list().map((item) => item.name)).toEqual(["github", "stripe"]);
  });

  it("tells listeners about changes, its own and those found by reload", () => {
    const dir = tempDir();
    const vault = open(dir);
    let changes = 0;
    const unsubscribe = vault.onChange(() => changes++);
    vault.onChange(() => {
      throw new Error("a broken listener");
    });
    vault.set("github", "token", CANARY);
    expect(changes).toBe(1);
    open(dir).set("github", "user", OTHER);
    expect(vault.reload()).toEqual({ ok: true });
    expect(changes).toBe(2);
    expect(vault.reveal("github", "user")).toEqual({ ok: true, value: OTHER });
    vault.reload();
    expect(changes).toBe(2);
    unsubscribe();
    vault.remove("github");
    expect(changes).toBe(2);
  });

  it("refuses a plaintext-fallback cipher unless the person accepted it", () => {
    const plaintext: SecretCipher = { id: "basic-text", plaintextFallback: true, encrypt: (b) => b, decrypt: (b) => b };
    expect(Vault.open(tempDir(), { cipher: plaintext })).toMatchObject({ ok: false, reason: "plaintext-refused" });
    expect(Vault.open(tempDir(), { cipher: plaintext, acceptPlaintext: true }).ok).toBe(true);
  });

  it("reports a value sealed by another cipher instead of dropping it", () => {
    const dir = tempDir();
    open(dir, { cipher: new AesGcmCipher(Buffer.alloc(32, 9)) }).set("github", "token", CANARY);
    const other: SecretCipher = { id: "safe-storage", encrypt: (b) => b, decrypt: (b) => b };
    const vault = open(dir, { cipher: other });
    expect(vault.reveal("github", "token")).toMatchObject({ ok: false, message: expect.stringMatching(/sealed by "aes-256-gcm" and this process uses "safe-storage"/) });
    expect(vault.list()[0]!.fields[0]!.problem).toBeDefined();
  });
});
