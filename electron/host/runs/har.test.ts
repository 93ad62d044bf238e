import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { CodeRunStore } from "./store.ts";
import { exportHar } from "./har.ts";
import { exportRunJson } from "./export-json.ts";
import { sampleCall, sampleRun, steppingClock, tempDataDir } from "./test-support.ts";

/** The fields HAR 1.2 requires (http://www.softwareishard.com/blog/har-12-spec/), as a JSON schema. */
const nameValue = { type: "object", required: ["name", "value"], properties: { name: { type: "string" }, value: { type: "string" } } };
const nameValues = { type: "array", items: nameValue };
const HAR_1_2 = {
  type: "object",
  required: ["log"],
  properties: {
    log: {
      type: "object",
      required: ["version", "creator", "entries"],
      properties: {
        version: { const: "1.2" },
        creator: { type: "object", required: ["name", "version"], properties: { name: { type: "string" }, version: { type: "string" } } },
        entries: {
          type: "array",
          items: {
            type: "object",
            required: ["startedDateTime", "time", "request", "response", "cache", "timings"],
            properties: {
              startedDateTime: { type: "string", format: "date-time" },
              time: { type: "number", minimum: 0 },
              request: {
                type: "object",
                required: ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"],
                properties: {
                  method: { type: "string" },
                  url: { type: "string", format: "uri" },
                  httpVersion: { type: "string" },
                  cookies: nameValues,
                  headers: nameValues,
                  queryString: nameValues,
                  postData: { type: "object", required: ["mimeType"], properties: { mimeType: { type: "string" }, text: { type: "string" } } },
                  headersSize: { type: "integer" },
                  bodySize: { type: "integer" },
                },
              },
              response: {
                type: "object",
                required: ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"],
                properties: {
                  status: { type: "integer" },
                  statusText: { type: "string" },
                  httpVersion: { type: "string" },
                  cookies: nameValues,
                  headers: nameValues,
                  content: {
                    type: "object",
                    required: ["size", "mimeType"],
                    properties: { size: { type: "integer" }, mimeType: { type: "string" }, text: { type: "string" }, encoding: { type: "string" } },
                  },
                  redirectURL: { type: "string" },
                  headersSize: { type: "integer" },
                  bodySize: { type: "integer" },
                },
              },
              cache: { type: "object" },
              timings: {
                type: "object",
                required: ["send", "wait", "receive"],
                additionalProperties: { type: "number", minimum: -1 },
              },
            },
          },
        },
      },
    },
  },
};
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateHar = ajv.compile(HAR_1_2);

let data: ReturnType<typeof tempDataDir>;
let store: CodeRunStore;
beforeEach(() => {
  data = tempDataDir();
  store = CodeRunStore.open(data.dir, { now: steppingClock().now, maxBodyBytes: 30 }).store;
});
afterEach(() => {
  store.close();
  data.remove();
});

/** One run whose calls end every way a call can end. */
function runWithEveryKindOfCall(): string {
  const run = store.createRun(sampleRun());
  const id = run.id;
  store.recordCall(sampleCall(id, 0, {
    request: { method: "get", url: "https://petstore.example/v1/pets?limit=2&tag=a%20b", headers: { Cookie: "session=⟦hidden:petstore/session⟧; theme=dark" } },
  }));
  store.finishCall(id, 0, {
    status: 200,
    durationMs: 42,
    response: { status: 200, headers: { "Content-Type": "application/json", "set-cookie": "seen=1; Path=/\nab=b; HttpOnly" }, body: '[{"id":1},{"id":2}]' },
  });
  store.recordCall(sampleCall(id, 1, {
    operation: "POST /pets",
    operationId: "createPet",
    request: { method: "POST", url: "https://petstore.example/v1/pets", headers: { "content-type": "application/json", authorization: "⟦hidden:petstore/token⟧" }, body: '{"name":"Rex"}' },
    idempotencyKey: "idem-1",
    decision: "approved",
    decidedBy: "ui",
    decidedAt: "2025-01-01T00:00:30.000Z",
  }));
  store.finishCall(id, 1, { status: 201, durationMs: 80, response: { status: 201, headers: { location: "/v1/pets/3" }, body: "x".repeat(100) } });
  store.recordCall(sampleCall(id, 2, { request: { method: "GET", url: "https://petstore.example/v1/photo", headers: {} } }));
  store.finishCall(id, 2, { status: 200, durationMs: 5, response: { status: 200, headers: { "content-type": "image/png" }, body: Buffer.from([137, 80, 78, 71]).toString("base64"), bodyEncoding: "base64" } });
  store.recordCall(sampleCall(id, 3));
  store.finishCall(id, 3, { status: "failed", error: { name: "CallFailed", message: "ECONNRESET" }, durationMs: 7 });
  store.recordCall(sampleCall(id, 4, { operation: "DELETE /pets/{id}", operationId: "deletePet" })); // left in flight
  store.recordCall(sampleCall(id, 5, { status: "pending", operation: "POST /pets", operationId: "createPet" }));
  store.recordCall(sampleCall(id, 6, { status: "denied", decision: "denied", denyMessage: "no" }));
  store.recordCall(sampleCall(id, 7, { status: "rejected", request: undefined, error: { name: "CallRejected", message: "no such operation" } }));
  store.updateRun(id, { status: "failed", failureReason: "Error" });
  return id;
}

describe("exportHar", () => {
  it("produces a HAR 1.2 document with every required field", () => {
    const har = exportHar(store, runWithEveryKindOfCall())!;
    const valid = validateHar(har);
    expect(validateHar.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(har.log.version).toBe("1.2");
    expect(har.log.creator).toEqual({ name: "Codemode Workbench", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    for (const entry of har.log.entries) {
      const parts = Object.values(entry.timings).filter((t) => t >= 0);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(entry.time); // HAR: time is the sum of the timings
    }
  });

  it("makes entries of calls that may have been sent, and lists the others", () => {
    const id = runWithEveryKindOfCall();
    const har = exportHar(store, id)!;
    expect(har.log.entries.map((e) => [e._workbench.index, e._workbench.status])).toEqual([[0, 200], [1, 201], [2, 200], [3, "failed"], [4, "in_flight"]]);
    expect(har.log._workbench).toEqual({
      run: id,
      status: "failed",
      notInHar: [
        { index: 5, operation: "POST /pets", status: "pending", why: "never sent" },
        { index: 6, operation: "GET /pets", status: "denied", why: "never sent" },
        { index: 7, operation: "GET /pets", status: "rejected", why: "never sent" },
      ],
    });
  });

  it("maps requests and responses, with the decision and truncation said", () => {
    const har = exportHar(store, runWithEveryKindOfCall())!;
    const [read, write, photo, failed, unknown] = har.log.entries;
    expect(read!.request).toMatchObject({
      method: "GET",
      httpVersion: "HTTP/1.1",
      queryString: [{ name: "limit", value: "2" }, { name: "tag", value: "a b" }],
      cookies: [{ name: "session", value: "⟦hidden:petstore/session⟧" }, { name: "theme", value: "dark" }],
      bodySize: 0,
    });
    expect(read!.response).toMatchObject({
      status: 200,
      statusText: "OK",
      cookies: [{ name: "seen", value: "1" }, { name: "ab", value: "b" }],
      content: { size: 19, mimeType: "application/json", text: '[{"id":1},{"id":2}]' },
      bodySize: 19,
    });
    expect(read!.time).toBe(42);
    expect(write!.request.postData).toEqual({ mimeType: "application/json", text: '{"name":"Rex"}' });
    expect(write!.request.headers).toContainEqual({ name: "authorization", value: "⟦hidden:petstore/token⟧" });
    expect(write!.response).toMatchObject({ status: 201, statusText: "Created", redirectURL: "/v1/pets/3", bodySize: 100 });
    expect(write!.response.content).toMatchObject({ size: 100, text: "x".repeat(30), comment: "body truncated by the workbench: 30 of 100 bytes kept" });
    expect(write!._workbench).toMatchObject({ operationId: "createPet", decision: "approved", decidedBy: "ui", idempotencyKey: "idem-1", argumentsHash: "hash-1" });
    expect(photo!.response.content).toEqual({ size: 4, mimeType: "image/png", text: "iVBORw==", encoding: "base64" });
    expect(failed!.response).toMatchObject({ status: 0, bodySize: -1 });
    expect(failed!._workbench.error).toEqual({ name: "CallFailed", message: "ECONNRESET" });
    expect(unknown!._workbench.note).toBe("outcome unknown, verify before retrying");
  });

  it("returns undefined for a run that does not exist", () => {
    expect(exportHar(store, "run_missing")).toBeUndefined();
  });
});

describe("exportRunJson", () => {
  it("exports the run and all its calls, in order, as plain JSON", () => {
    const id = runWithEveryKindOfCall();
    const exported = exportRunJson(store, id)!;
    expect(exported.format).toBe("codemode-workbench/run");
    expect(exported.run).toEqual(store.getRun(id));
    expect(exported.calls.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(JSON.parse(JSON.stringify(exported))).toEqual(exported);
    expect(exportRunJson(store, "run_missing")).toBeUndefined();
  });
});
