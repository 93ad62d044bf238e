/**
 * The execute tool end to end: real sandbox, real proxy, real upstreams on
 * loopback, real vault and run store in a temp data directory.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../cli.ts";
import type { CliIo } from "../../cli/io.ts";
import { json, startRecordingServer, type RecordingServer } from "../test-support/recording-server.ts";
import { startTodoServer, TODO_TOKEN } from "../test-support/todo-server.ts";
import { openTestBench, TEST_VAULT_KEY, type TestBench } from "../test-support/workbench.ts";

const cli = { kind: "cli" } as const;
let bench: TestBench | undefined;
const servers: RecordingServer[] = [];

afterEach(async () => {
  await bench?.close();
  bench = undefined;
  for (const s of servers.splice(0)) await s.close();
});

function captureIo(dataDir: string, stdin = ""): CliIo & { out: () => string } {
  let text = "";
  return {
    stdout: (t) => void (text += t),
    stderr: (t) => void (text += t),
    readStdin: async () => stdin,
    env: { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_VAULT_KEY: TEST_VAULT_KEY },
    exit: () => {},
    out: () => text,
  };
}

describe("execute", () => {
  it("dispatches a Promise.all's calls concurrently: they overlap on the wire", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({
      code: "async () => (await Promise.all([200, 200, 200, 200].map((ms) => apis.t.slow({ ms })))).map((r) => r.status)",
      policy: "read_only",
      source: cli,
    });
    expect(envelope.result).toEqual([200, 200, 200, 200]);
    expect(bench.upstream.maxInFlight()).toBe(4);
  });

  it("a run that times out mid-call answers in_flight with a note; the answer is recorded when it comes", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({ code: "async () => { await apis.t.slow({ ms: 1000 }); return 'never' }", policy: "read_only", source: cli, limits: { wallMs: 400 } });
    expect(envelope.error).toMatchObject({ reason: "Timeout" });
    expect(envelope.calls).toEqual([expect.objectContaining({ index: 0, status: "in_flight", note: expect.stringMatching(/^no answer yet when the run ended: outcome unknown, verify before retrying/) })]);
    expect(await bench.workbench.finishCallsOnTheWire(5_000)).toBe(true);
    expect(bench.workbench.store.getRun(envelope.run)?.envelope?.calls).toEqual([expect.objectContaining({ status: 200, answered_after_run_ended: true, note: "answered after the run ended: the program never saw this answer" })]);
  });

  it("counts calls against the call limit", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({ code: "async () => { for (let i = 0; i < 20; i++) await apis.t.listItems({}); }", policy: "read_only", source: cli, limits: { maxCalls: 5 } });
    expect(envelope.error).toMatchObject({ reason: "CallLimit" });
    expect(bench.count("GET", "/items")).toBe(5);
  });

  it("a mistyped operation or API is CallRejected naming the nearest ones, recorded; apis.call is the string form", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({
      code: `async () => {
        const out = [];
        for (const f of [
          () => apis.t.listItem({}),
          () => apis.t["list-items"](),
          () => apis.tt.listItems({}),
          () => apis.call("t.listItems", { tag: "x" }),
          () => apis.call("t.lisItems"),
          () => apis.call("listItems"),
        ]) {
          try { out.push((await f()).status) } catch (e) { out.push(e.name + ": " + e.message) }
        }
        return out;
      }`,
      policy: "read_only",
      source: cli,
    });
    expect(envelope.status, JSON.stringify(envelope)).toBe("completed");
    const [typo, dashed, api, byString, stringTypo, noApi] = envelope.result as string[];
    expect(typo).toMatch(/^CallRejected: No operation listItem\. Nearest: GET \/items \(listItems\)/);
    expect(dashed).toMatch(/^CallRejected: No operation list-items\. Nearest: GET \/items \(listItems\)/);
    expect(api).toBe("CallRejected: No API named tt; the APIs are t, petstore. Nothing was sent.");
    expect(byString).toBe(200);
    expect(stringTypo).toMatch(/^CallRejected: No operation lisItems\. Nearest: GET \/items \(listItems\)/);
    expect(noApi).toMatch(/^CallRejected: The call names no API: call apis\.<api>\.<operation>\(args\) or apis\.call\("<api>\.<operation>", args\); the APIs are /);
    // Every attempt is in the record; only the good one was sent.
    expect(envelope.calls.map((c) => [c.api, c.operation, c.status])).toEqual([
      ["t", "apis.t.listItem", "rejected"],
      ["t", "apis.t.list-items", "rejected"],
      ["tt", "apis.tt.listItems", "rejected"],
      ["t", "GET /items", 200],
      ["t", "apis.t.lisItems", "rejected"],
      ["", "apis..listItems", "rejected"],
    ]);
    expect(bench.upstream.requests.map((r) => r.url)).toEqual(["/items?tag=x"]);
  });

  it("the guarded apis object still behaves as an object: await, JSON, keys, in, freezing", async () => {
    bench = await openTestBench();
    const envelope = await bench.workbench.execute({
      code: `async () => {
        const awaited = await apis.t;
        let assigned;
        try { Object.defineProperty(apis.t, "listItems", { value: () => "forged" }); assigned = "assigned" } catch (e) { assigned = e.name }
        return {
          awaited: typeof awaited.listItems,
          then: typeof apis.t.then,
          json: JSON.stringify(apis),
          keys: Object.keys(apis).sort(),
          known: "listItems" in apis.t,
          unknown: "listItem" in apis.t,
          text: String(apis.t),
          assigned,
          still: (await apis.t.listItems({})).status,
        };
      }`,
      policy: "read_only",
      source: cli,
    });
    expect(envelope.result).toEqual({ awaited: "function", then: "undefined", json: '{"petstore":{},"t":{}}', keys: ["petstore", "t"], known: true, unknown: false, text: "[object Object]", assigned: "TypeError", still: 200 });
    expect(envelope.calls).toHaveLength(1);
  });

  it("a canary secret appears in no envelope, log, CLI output, stored file or error", async () => {
    const canary = "sk-canary-Zq81vX0pLm27";
    const echo = await startRecordingServer((req, res) => json(res, 200, { authorization: req.headers.authorization, query: req.url, body: req.text }));
    servers.push(echo);
    bench = await openTestBench();
    const { workbench, dataDir } = bench;
    workbench.vault.set("echo", "token", canary, { allowApis: ["echo"] });
    const spec = {
      openapi: "3.0.3",
      info: { title: "Echo", version: "1" },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
      paths: { "/echo": { post: { operationId: "echo", parameters: [{ name: "q", in: "query", schema: { type: "string" } }], requestBody: { content: { "application/json": { schema: {} } } }, responses: { "200": { description: "ok" } } } } },
    };
    const { result } = workbench.registry.store.ingest(JSON.stringify(spec));
    if (!result.ok) throw new Error(result.error.message);
    expect(workbench.registry.register("echo", result.artifact, { baseUrl: echo.url, auth: { scheme: "bearer", credential: "vault:echo/token" } }, { kind: "text" }).ok).toBe(true);

    const program = `async () => {
      const r = await apis.echo.echo({ q: vault.echo.token, body: { secret: vault.echo.token } });
      console.log("echoed", JSON.stringify(r.body));
      try { await apis.echo.request({ method: "POST", path: "/nope/" + vault.echo.token }); } catch (e) { console.log(e.message); }
      throw new Error("failing with " + JSON.stringify(r.body));
    }`;
    const envelope = await workbench.execute({ code: program, policy: "all", source: cli, preApprovedBy: "test" });
    // The upstream really got the secret in all three places...
    const received = echo.requests[0]!;
    expect(received.headers.authorization).toBe(`Bearer ${canary}`);
    expect(received.url).toContain(canary);
    expect(received.text).toContain(canary);
    // ...and nothing the workbench shows or keeps contains it, in any encoding.
    const forms = [canary, encodeURIComponent(canary), Buffer.from(canary).toString("base64")];
    const shown = JSON.stringify(envelope);
    expect(shown).toContain("⟦hidden:echo/token⟧");
    for (const form of forms) expect(shown).not.toContain(form);

    const io = captureIo(dataDir);
    await main(["runs", "show", envelope.run], io);
    await main(["runs", "show", envelope.run, "--json"], io);
    await main(["runs", "export", envelope.run, "--har"], io);
    await main(["runs", "list", "--json"], io);
    await main(["vault", "list", "--json"], io);
    expect(io.out()).toContain(envelope.run);
    for (const form of forms) expect(io.out()).not.toContain(form);

    await workbench.close();
    bench = { ...bench, close: async () => {} };
    for (const file of allFiles(dataDir)) {
      const bytes = readFileSync(file);
      for (const form of forms) expect(bytes.includes(form), `${file} contains the canary`).toBe(false);
    }
  });
});

describe("a real Swagger 2.0 API of a go-swagger-style server, with a basePath", () => {
  it("reads, a validated write, a refused invalid write, and a multipart upload", async () => {
    const todo = await startTodoServer();
    servers.push(todo);
    bench = await openTestBench();
    const io = captureIo(bench.dataDir, TODO_TOKEN);
    const spec = join(import.meta.dirname, "../specs/fixtures/go-swagger-todos.yaml");
    expect(await main(["vault", "set", "todo/token", "--stdin", "--allow-api", "todo"], io)).toBe(0);
    expect(await main(["api", "add", "todo", spec, "--base-url", `${todo.url}/api/v1`, "--auth-scheme", "key", "--credential", "vault:todo/token"], io)).toBe(0);

    const envelope = await bench.workbench.execute({
      code: `async () => {
        const list = await apis.todo.listTodos({ limit: 5, labels: ["a", "b"] });
        const created = await apis.todo.createTodo({ body: { description: "ship it" } });
        let refused;
        try { await apis.todo.createTodo({ body: { description: "" } }); } catch (e) { refused = e.name + ": " + e.message; }
        const attached = await apis.todo.uploadAttachment({ id: created.body.id, body: { file: { filename: "notes.txt", contentType: "text/plain", text: "hello" }, caption: "hi" } });
        return { list: list.body.map((t) => t.description), created: created.body, requestId: created.headers["x-request-id"] ?? null, refused, attached: attached.body };
      }`,
      policy: "all",
      source: cli,
      preApprovedBy: "test",
    });
    expect(envelope.status, JSON.stringify(envelope)).toBe("completed");
    const result = envelope.result as { list: string[]; created: { id: number; description: string }; refused: string; attached: { hasFile: boolean } };
    expect(result.list).toEqual(["write the spec"]);
    expect(result.created).toMatchObject({ id: 2, description: "ship it", completed: false });
    expect(result.refused).toMatch(/^CallRejected: invalid arguments for createTodo: body\/description must NOT have fewer than 1 characters/);
    expect(result.attached).toEqual({ received: expect.any(Number), hasFile: true });
    const paths = todo.requests.map((r) => `${r.method} ${r.url}`);
    expect(paths).toEqual(["GET /api/v1/todos?limit=5&labels=a,b", "POST /api/v1/todos", "POST /api/v1/todos/2/attachments"]);
    expect(todo.requests[1]!.headers["x-todolist-token"]).toBe(TODO_TOKEN);
  });
});

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}
