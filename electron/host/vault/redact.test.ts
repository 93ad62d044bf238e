import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Redactor, REDACTION_FAILED } from "./redact.ts";
import type { JsonValue } from "../../../shared/json.ts";

/** No lone surrogates: such a string cannot travel as UTF-8 at all. */
const wellFormed = (s: string) => !/[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""));
const TOKEN = "ghp_Canary7d2e91b4xyz";
const PASSWORD = 'p@ss w/rd+"é\\ok';
const redactor = () => new Redactor([{ label: "github/token", value: TOKEN }, { label: "site/password", value: PASSWORD }]);
const HIDDEN_TOKEN = "⟦hidden:github/token⟧";
const HIDDEN_PASSWORD = "⟦hidden:site/password⟧";

describe("Redactor", () => {
  it("hides raw values and keeps the text around them", () => {
    expect(redactor().redact(`Authorization: Bearer ${TOKEN}\nok`)).toBe(`Authorization: Bearer ${HIDDEN_TOKEN}\nok`);
    expect(redactor().redact(`${TOKEN}${TOKEN}`)).toBe(`${HIDDEN_TOKEN}${HIDDEN_TOKEN}`);
    expect(redactor().redact("nothing secret here")).toBe("nothing secret here");
  });

  it("hides percent-encoded forms from query strings and form bodies", () => {
    const r = redactor();
    expect(r.redact(`/login?pw=${encodeURIComponent(PASSWORD)}&x=1`)).toBe(`/login?pw=${HIDDEN_PASSWORD}&x=1`);
    expect(r.redact(new URLSearchParams({ pw: PASSWORD, x: "1" }).toString())).toBe(`pw=${HIDDEN_PASSWORD}&x=1`);
    expect(r.redact(`pw=${encodeURIComponent(PASSWORD).toLowerCase()}`)).toBe(`pw=${HIDDEN_PASSWORD}`);
  });

  it("hides JSON-escaped forms, also JSON inside JSON", () => {
    const r = redactor();
    expect(r.redact(JSON.stringify({ password: PASSWORD }))).toBe(`{"password":"${HIDDEN_PASSWORD}"}`);
    expect(r.redact(JSON.stringify(JSON.stringify({ password: PASSWORD })))).toBe(JSON.stringify(`{"password":"`).slice(0, -1) + HIDDEN_PASSWORD + JSON.stringify(`"}`).slice(1));
    const asciiOnly = JSON.stringify(PASSWORD).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replace(/\//g, "\\/");
    expect(r.redact(`{"p":${asciiOnly}}`)).toBe(`{"p":"${HIDDEN_PASSWORD}"}`);
  });

  it("hides base64 and base64url forms, standalone and inside a Basic header", () => {
    const r = redactor();
    expect(r.redact(`x ${Buffer.from(TOKEN).toString("base64")} y`)).toBe(`x ${HIDDEN_TOKEN} y`);
    expect(r.redact(Buffer.from(PASSWORD).toString("base64url"))).toBe(HIDDEN_PASSWORD);
    // Without the proxy adding "user:pass", the password is still found inside the encoded pair.
    const basic = `Basic ${Buffer.from(`octocat:${TOKEN}`).toString("base64")}`;
    const redacted = r.redact(basic);
    expect(redacted).toContain(HIDDEN_TOKEN);
    expect(redacted.startsWith("Basic b2N0b2NhdD")).toBe(true);
    // With the pair added, the whole credential goes.
    r.add("github/basic", `octocat:${TOKEN}`);
    expect(r.redact(basic)).toBe("Basic ⟦hidden:github/basic⟧");
  });

  it("hides secrets in JSON values, keys included, without touching the input", () => {
    const input: JsonValue = { [TOKEN]: [1, { auth: `Bearer ${TOKEN}` }, null, true], ["__proto__"]: PASSWORD };
    const before = JSON.stringify(input);
    const out = redactor().redactJson(input);
    expect(JSON.stringify(out)).toBe(JSON.stringify({ [HIDDEN_TOKEN]: [1, { auth: `Bearer ${HIDDEN_TOKEN}` }, null, true], ["__proto__"]: HIDDEN_PASSWORD }));
    expect(JSON.stringify(input)).toBe(before);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it("prefers the longest secret and leaves no part of overlapping ones", () => {
    const r = new Redactor([{ label: "short", value: "abcd1234" }, { label: "long", value: "abcd1234efgh" }]);
    expect(r.redact("x abcd1234efgh y abcd1234 z")).toBe("x ⟦hidden:long⟧ y ⟦hidden:short⟧ z");
    const overlapping = new Redactor([{ label: "a", value: "wxyz1" }, { label: "b", value: "z1234567" }]);
    expect(overlapping.redact("[wxyz1234567]")).toBe("[⟦hidden:b⟧]");
  });

  it("ignores secrets shorter than 4 characters and learns new ones at runtime", () => {
    const r = new Redactor([{ label: "tiny", value: "abc" }]);
    expect(r.size).toBe(0);
    expect(r.redact("abc abc")).toBe("abc abc");
    r.add("oauth2:github", "access-token-canary");
    expect(r.redact("token access-token-canary")).toBe("token ⟦hidden:oauth2:github⟧");
  });

  it("redacts values nested at any depth (a program's result 100,000 deep), and returns what holds no secret as is", () => {
    let deep: JsonValue = [`token ${TOKEN}`];
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { [`k${i}`]: deep };
    const out = redactor().redactJson(deep);
    let bottom = out;
    for (let i = 0; i < 100_000; i++) bottom = Array.isArray(bottom) ? bottom[0]! : Object.values(bottom as Record<string, JsonValue>)[0]!;
    expect(bottom).toEqual([`token ${HIDDEN_TOKEN}`]);
    const clean: JsonValue = { a: [1, "two", { three: null }], b: "nothing" };
    expect(redactor().redactJson(clean)).toBe(clean);
  });

  it("never throws", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(redactor().redactJson(cyclic as JsonValue)).toBe(REDACTION_FAILED);
    expect(redactor().redact(undefined as unknown as string)).toBe("undefined");
  });

  it("hides any secret in any of its forms, wherever it sits (property)", () => {
    const secretText = fc.string({ minLength: 4, maxLength: 40, unit: "binary" }).filter((s) => !/[⟦⟧]/.test(s) && wellFormed(s));
    const around = fc.string({ maxLength: 20, unit: "binary" }).filter((s) => wellFormed(s));
    fc.assert(
      fc.property(secretText, around, around, (secret, before, after) => {
        const r = new Redactor([{ label: "s", value: secret }]);
        const forms = [
          before + secret + after,
          encodeURIComponent(before + secret + after),
          new URLSearchParams({ q: before + secret + after }).toString(),
          JSON.stringify(before + secret + after),
          JSON.stringify(JSON.stringify(before + secret + after)),
          Buffer.from(before + secret + after).toString("base64"),
          Buffer.from(before + secret + after).toString("base64url"),
        ];
        for (const form of forms) expect(r.redact(form)).toContain("⟦hidden:s⟧");
        expect(r.redact(before + secret + after)).not.toContain(secret);
      }),
      { numRuns: 300 },
    );
  });
});
