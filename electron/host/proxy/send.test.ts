import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startRecordingServer, type RecordingServer } from "../test-support/recording-server.ts";
import { sendRequest } from "./send.ts";
import type { CallFailure, OutgoingRequest } from "./types.ts";

let upstream: RecordingServer;
let other: RecordingServer;
let streamedBytes = 0;

beforeAll(async () => {
  other = await startRecordingServer((_req, res) => json(res, 200, { other: true }));
  upstream = await startRecordingServer(async (req, res) => {
    if (req.path === "/same") return void res.writeHead(302, { location: "/final" }).end();
    if (req.path === "/see-other") return void res.writeHead(303, { location: "/final" }).end();
    if (req.path === "/elsewhere") return void res.writeHead(307, { location: `${other.url}/steal` }).end();
    if (req.path === "/final") return json(res, 200, { method: req.method, body: req.text });
    if (req.path === "/hang") return; // never answers
    if (req.path === "/declared-huge") {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) });
      return void res.write("[");
    }
    if (req.path === "/stream-huge") {
      // 50 MB in 64 KiB chunks, without a length: the cap must stop it while streaming.
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 120);
      for (let sent = 0; sent < 50 * 1024 * 1024; sent += chunk.length) {
        if (res.destroyed) return;
        streamedBytes += chunk.length;
        if (!res.write(chunk)) await new Promise((r) => res.once("drain", r).once("close", r));
      }
      return void res.end();
    }
    json(res, 404, { error: "no" });
  });
});
afterAll(async () => {
  await upstream.close();
  await other.close();
});

function request(path: string, method = "GET", body?: string): OutgoingRequest {
  return { method, url: new URL(path, upstream.url), headers: { authorization: "Bearer canary-secret", ...(body ? { "content-type": "application/json" } : {}) }, ...(body ? { body } : {}) };
}
/** Options as the pipeline gives them: redirects followed under the request's origin, errors naming origin and path. */
function opts(req: OutgoingRequest) {
  return { timeoutMs: 1_000, maxResponseBytes: 1024 * 1024, baseUrl: req.url.origin, describe: `${req.url.origin}${req.url.pathname}` };
}
function send(req: OutgoingRequest, extra: { timeoutMs?: number } = {}) {
  return sendRequest(req, { ...opts(req), ...extra });
}

async function failure(promise: Promise<unknown>): Promise<CallFailure> {
  try {
    await promise;
  } catch (err) {
    return err as CallFailure;
  }
  throw new Error("expected a failure");
}

describe("sendRequest", () => {
  it("follows redirects within the same origin, keeping method and body for 307/308 and switching to GET for 303", async () => {
    const followed = await send(request("/same"));
    expect(followed.status).toBe(200);
    expect(followed.url.pathname).toBe("/final");
    const seeOther = await send(request("/see-other", "POST", '{"a":1}'));
    expect(JSON.parse(new TextDecoder().decode(seeOther.body))).toEqual({ method: "GET", body: "" });
  });

  it("does not follow a redirect to another origin, so the credential never leaves", async () => {
    const before = other.requests.length;
    const response = await send(request("/elsewhere"));
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(`${other.url}/steal`);
    expect(other.requests.length).toBe(before);
  });

  it("ends a hanging upstream as CallFailed at the API's timeout", async () => {
    const started = Date.now();
    const error = await failure(send(request("/hang"), { timeoutMs: 300 }));
    expect(error.callError.name).toBe("CallFailed");
    expect(error.message).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+\/hang within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses an answer that declares more than the cap without reading it", async () => {
    const error = await failure(send(request("/declared-huge")));
    expect(error.message).toMatch(/larger than the API's limit of 1048576 bytes \(it declared 52428800 bytes\)/);
  });

  it("refuses a 50 MB stream after the cap, without buffering it", async () => {
    streamedBytes = 0;
    const heapBefore = process.memoryUsage().arrayBuffers;
    const error = await failure(send(request("/stream-huge")));
    expect(error.message).toMatch(/more than 1048576 bytes arrived/);
    await new Promise((r) => setTimeout(r, 100));
    // The server stops early because the client hung up; far less than 50 MB was ever produced.
    expect(streamedBytes).toBeLessThan(20 * 1024 * 1024);
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(30 * 1024 * 1024);
  });

  it("reports an unreachable host by its error code and never the query string", async () => {
    const closed = await startRecordingServer();
    await closed.close();
    const error = await failure(send({ method: "GET", url: new URL(`${closed.url}/x?api_key=canary-secret`), headers: {} }));
    expect(error.callError.name).toBe("CallFailed");
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.message).not.toContain("canary");
  });
});
