import { mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../../shared/json.ts";
import { findReferences, substituteReferences, vaultGlobal } from "./references.ts";
import { Vault } from "./vault.ts";

const TOKEN = "canary-ref-91c3e0-token";
const KEY = "canary-ref-stripe-key";

function vaultWithSecrets(): { vault: Vault; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "vault-refs-"));
  const opened = Vault.open(dir, { env: {} });
  if (!opened.ok) throw new Error(opened.message);
  opened.vault.set("github", "token", TOKEN, { allowApis: ["github"] });
  opened.vault.set("stripe", "key", KEY, { allowApis: ["stripe"] });
  return { vault: opened.vault, dir };
}

describe("vaultGlobal", () => {
  it("gives programs references, never values", () => {
    const { vault } = vaultWithSecrets();
    const global = vaultGlobal(vault);
    expect(global).toEqual({ github: { token: "⟦vault:github/token⟧" }, stripe: { key: "⟦vault:stripe/key⟧" } });
    expect(JSON.stringify(global)).not.toContain(TOKEN);
  });
});

describe("findReferences", () => {
  it("finds references in any string, keys included, each once", () => {
    const value: JsonValue = {
      headers: { authorization: "Bearer ⟦vault:github/token⟧" },
      query: { a: ["x", "⟦vault:stripe/key⟧⟦vault:github/token⟧"] },
      "⟦vault:a.b/c-d_e⟧": 1,
      plain: "vault:github/token",
    };
    expect(findReferences(value)).toEqual([
      { item: "github", field: "token" },
      { item: "stripe", field: "key" },
      { item: "a.b", field: "c-d_e" },
    ]);
    expect(findReferences({ n: 1, b: true, z: null })).toEqual([]);
  });
});

describe("substituteReferences", () => {
  it("substitutes inside strings for an allowed API, and says which were used", () => {
    const { vault } = vaultWithSecrets();
    const args: JsonValue = { headers: { authorization: "Bearer ⟦vault:github/token⟧" }, query: { t: "⟦vault:github/token⟧" }, body: { "⟦vault:github/token⟧": ["x⟦vault:github/token⟧y"] } };
    const result = substituteReferences(args, "github", vault);
    expect(result).toEqual({
      ok: true,
      value: { headers: { authorization: `Bearer ${TOKEN}` }, query: { t: TOKEN }, body: { [TOKEN]: [`x${TOKEN}y`] } },
      used: [{ item: "github", field: "token" }],
    });
    expect(JSON.stringify(args)).not.toContain(TOKEN);
  });

  it("leaves values without references as they are", () => {
    const { vault } = vaultWithSecrets();
    expect(substituteReferences({ a: [1, "two", null] }, "github", vault)).toEqual({ ok: true, value: { a: [1, "two", null] }, used: [] });
  });

  it("denies the whole call when one reference may not go to this API", () => {
    const { vault } = vaultWithSecrets();
    const result = substituteReferences({ a: "⟦vault:github/token⟧", b: "⟦vault:stripe/key⟧" }, "github", vault);
    expect(result).toEqual({
      ok: false,
      error: { name: "VaultDenied", message: expect.stringMatching(/⟦vault:stripe\/key⟧ may not be sent to API "github" \(it may be sent only to: stripe\).*Nothing was sent/) },
    });
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it("denies unknown, malformed and undecryptable references with a message naming them", () => {
    const { vault, dir } = vaultWithSecrets();
    expect(substituteReferences("⟦vault:gitlab/token⟧", "github", vault)).toMatchObject({ ok: false, error: { name: "VaultDenied", message: expect.stringMatching(/names no vault item "gitlab"/) } });
    expect(substituteReferences("⟦vault:github/tokn⟧", "github", vault)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/names no field "tokn" of vault item "github" \(it has: token\)/) } });
    expect(substituteReferences("⟦vault:github token⟧", "github", vault)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/is not a vault reference/) } });

    const doc = JSON.parse(readFileSync(join(dir, "vault.json"), "utf8"));
    doc.items.github.fields.token.sealed = Buffer.alloc(40, 1).toString("base64");
    writeFileSync(join(dir, "vault.json"), JSON.stringify(doc));
    vault.reload();
    const result = substituteReferences("Bearer ⟦vault:github/token⟧", "github", vault);
    expect(result).toMatchObject({ ok: false, error: { name: "VaultDenied", message: expect.stringMatching(/⟦vault:github\/token⟧ cannot be used: github\/token: cannot decrypt/) } });
  });
});
