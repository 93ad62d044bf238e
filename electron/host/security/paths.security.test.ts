/**
 * A hostile program climbs no path (issue #10, classes 4 and 9): a path
 * parameter is one literal segment whatever its spelling or style, the URL
 * sent is always under the API's base URL with the template's segments, an
 * allow rule never lets a call out of its template, and `request()` adds no
 * query parameter the operation's binding would refuse.
 */
import { main } from "../../cli.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertNoSecret, openAttackBench, type AttackBench } from "./harness.ts";

let bench: AttackBench;
beforeAll(async () => {
  bench = await openAttackBench(main);
});
afterAll(async () => bench.close());

/** Paths the victim received since `from`. */
function pathsSince(from: number): string[] {
  return bench.victim.requests.slice(from).map((r) => r.url);
}

/** Runs `program` over each input (JSON), returning [input, "sent " + status | error name + message]. */
async function tryEach(call: string, inputs: unknown[], options: Parameters<AttackBench["run"]>[1] = {}): Promise<[unknown, string][]> {
  const envelope = await bench.run(
    `async () => {
      const out = [];
      for (const input of ${JSON.stringify(inputs)}) {
        try { const r = await ${call}; out.push([input, "sent " + r.status]); }
        catch (e) { out.push([input, e.name + ": " + e.message]); }
      }
      return out;
    }`,
    options,
  );
  expect(envelope.status, JSON.stringify(envelope.error)).toBe("completed");
  assertNoSecret(await bench.exposure(envelope.run));
  return envelope.result as [unknown, string][];
}

const CLIMBS = [".", "..", "", "%2e", "%2E%2e", ".%2e", "%2e.", "..%2f..", "../..", "a/../..", "..\\", "\\..", "/", "%2F", "?x=1", "#frag", "..;", "%00"];

describe("class 4: a path parameter is one literal segment", () => {
  it("binding form: dots are refused, everything else is sent encoded, under /api/things/ and nowhere else", async () => {
    const from = bench.victim.requests.length;
    const results = await tryEach("apis.x.getThing({ id: input })", CLIMBS, { policy: "read_only" });
    const outcome = Object.fromEntries(results.map(([input, out]) => [String(input), out]));
    expect(outcome["."]).toMatch(/^CallRejected: .*would make the segment "\.", which climbs the path/);
    expect(outcome[".."]).toMatch(/^CallRejected: .*climbs the path/);
    expect(outcome[""]).toMatch(/^CallRejected: /);
    for (const sent of pathsSince(from)) expect(sent).toMatch(/^\/api\/things\/[^/]+$/);
    // A literal "%2e" is not a dot: it goes as %252e, one segment.
    expect(pathsSince(from)).toContain("/api/things/%252e");
    expect(pathsSince(from)).toContain("/api/things/..%2F..");
  });

  it("label style and a spec's allowReserved cannot make a dot segment or let a slash through", async () => {
    const from = bench.victim.requests.length;
    const labels = await tryEach("apis.x.getLabel({ id: input })", [".", "x"], { policy: "read_only" });
    expect(labels[0]![1]).toMatch(/^CallRejected: .*"\.\.", which climbs/);
    expect(labels[1]![1]).toBe("sent 200");
    const reserved = await tryEach("apis.x.getReserved({ id: input })", ["../../admin", "a/b", "a?b", ".."], { policy: "read_only" });
    expect(reserved.map(([, out]) => out)).toEqual(["sent 200", "sent 200", "sent 200", expect.stringMatching(/^CallRejected: /)]);
    expect(pathsSince(from)).toEqual(["/api/labels/.x", "/api/reserved/..%2F..%2Fadmin", "/api/reserved/a%2Fb", "/api/reserved/a%3Fb"]);
  });

  it("request(): a concrete path that climbs, in any spelling, is refused and nothing is sent", async () => {
    const from = bench.victim.requests.length;
    const paths = ["/things/..", "/things/.", "/things/%2e%2e", "/things/%2E.", "/things/.%2E", "/things/..%2f", "/things/%2e%2e/", "/../things/1", "/things/1/..", "//evil.example/things/1", "/things/1#/..", "/things/\\..", "/api/things/.."];
    const results = await tryEach('apis.x.request({ method: "GET", path: input })', paths, { policy: "read_only" });
    const sent = results.filter(([, out]) => out.startsWith("sent")).map(([path]) => path);
    // Only spellings that are one literal segment go out (a backslash, "..%2f"), each encoded, under /api/things/.
    expect(sent).toEqual(["/things/..%2f", "/things/\\.."]);
    for (const [, out] of results) if (!out.startsWith("sent")) expect(out).toMatch(/^CallRejected: /);
    expect(pathsSince(from)).toEqual(["/api/things/..%2F", "/api/things/%5C.."]);
  });

  it("an always-allow rule on DELETE /things/{id} never lets deleteThing({id: '..'}) out, and nobody is asked", async () => {
    bench.workbench.store.addAllowRule({ api: "x", operationId: "deleteThing", createdBy: "person" });
    const from = bench.victim.requests.length;
    const results = await tryEach("apis.x.deleteThing({ id: input })", ["..", ".", "%2e%2e", "7"], { approveWrites: false });
    expect(results.map(([, out]) => out.split(":")[0])).toEqual(["CallRejected", "CallRejected", "sent 200", "sent 200"]);
    expect(bench.victim.requests.slice(from).map((r) => `${r.method} ${r.url}`)).toEqual(["DELETE /api/things/%252e%252e", "DELETE /api/things/7"]);
    expect(bench.workbench.store.listPendingDecisions()).toEqual([]);
  });

  it("a hostile spec whose literal path climbs above the base URL is refused at send time", async () => {
    bench.registerApi("h", { openapi: "3.0.3", info: { title: "H", version: "1" }, paths: { "/a/../../admin": { get: { operationId: "admin", responses: { "200": { description: "ok" } } } }, "/b/%2e%2e/%2e%2e/admin": { get: { operationId: "admin2", responses: { "200": { description: "ok" } } } } } }, { baseUrl: `${bench.victim.url}/api` });
    const from = bench.victim.requests.length;
    const results = await tryEach("apis.h[input]({})", ["admin", "admin2"], { policy: "read_only" });
    for (const [, out] of results) expect(out).toMatch(/^CallRejected: the request for GET .* would go to .*, which (is outside the API's base path \/api|does not have the \d segments)/);
    expect(pathsSince(from)).toEqual([]);
  });
});

describe("class 9: request() obeys the binding's rules", () => {
  it("undeclared query parameters in the path or the query option are refused under strict validation", async () => {
    const from = bench.victim.requests.length;
    const results = await tryEach("apis.x.request(input)", [
      { method: "GET", path: "/things/1?_method=DELETE" },
      { method: "GET", path: "/things/1", query: { _method: "DELETE" } },
      { method: "GET", path: "/echo?q=1&mode=plain" },
    ], { policy: "read_only" });
    expect(results[0]![1]).toMatch(/^CallRejected: invalid arguments for getThing: query parameter "_method" is not declared by getThing/);
    expect(results[1]![1]).toMatch(/^CallRejected: .*"_method" is not declared/);
    expect(results[2]![1]).toBe("sent 200");
    expect(pathsSince(from)).toEqual(["/api/echo?q=1&mode=plain"]);
  });

  it("a program cannot shadow the credential's own query parameter or cookie", async () => {
    bench.registerApi("k", { openapi: "3.0.3", info: { title: "K", version: "1" }, components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "key" } } }, security: [{ key: [] }], paths: { "/echo": { get: { operationId: "echo", parameters: [{ name: "key", in: "query", schema: { type: "string" } }], responses: { "200": { description: "ok" } } } } } }, { baseUrl: `${bench.victim.url}/api`, auth: { scheme: "key", credential: "vault:x/token" } });
    bench.workbench.vault.set("x", "token", (bench.workbench.vault.reveal("x", "token") as { value: string }).value, { allowApis: ["x", "k"] });
    const from = bench.victim.requests.length;
    const envelope = await bench.run(`async () => {
      const out = [];
      for (const f of [() => apis.k.echo({ key: "attacker" }), () => apis.k.request({ method: "GET", path: "/echo?key=attacker" })]) {
        try { await f(); out.push("sent"); } catch (e) { out.push(e.message); }
      }
      return out;
    }`, { policy: "read_only" });
    expect(envelope.result).toEqual([expect.stringMatching(/query parameter "key" is reserved/), expect.stringMatching(/query parameter "key" is reserved/)]);
    expect(pathsSince(from)).toEqual([]);
    assertNoSecret(await bench.exposure(envelope.run));
  });
});
