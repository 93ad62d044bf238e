import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
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
    const encoded = ENCODED[req.path];
    if (encoded) {
      acceptEncodings.push(req.headers["accept-encoding"]);
      const [coding, bytes, status = 200] = encoded;
      return void res.writeHead(status, { "content-type": "application/json", "content-encoding": coding, ...(status === 204 ? {} : { "content-length": String(bytes.byteLength) }) }).end(status === 204 ? undefined : bytes);
    }
    json(res, 404, { error: "no" });
  });
});

const ANSWER = JSON.stringify({ id: 7, name: "gzip answered" });
/** Paths that answer with an encoded body: the coding, the bytes on the wire, the status. */
const ENCODED: Record<string, [string, Buffer, number?]> = {
  "/gzip": ["gzip", gzipSync(ANSWER)],
  "/deflate": ["deflate", deflateSync(ANSWER)],
  "/br": ["br", brotliCompressSync(ANSWER)],
  "/gzip-then-br": ["gzip, br", brotliCompressSync(gzipSync(ANSWER))],
  // 64 MB of zeros in about 64 KB: small on the wire, past any cap once inflated.
  "/gzip-bomb": ["gzip", gzipSync(Buffer.alloc(64 * 1024 * 1024))],
  "/not-gzip": ["gzip", Buffer.from(ANSWER)],
  "/not-br": ["br", Buffer.from(ANSWER)],
  "/not-deflate": ["deflate", Buffer.from(ANSWER)],
  "/gzip-cut-short": ["gzip", gzipSync(ANSWER).subarray(0, 12)],
  "/unknown-coding": ["x-workbench-unknown", Buffer.from(ANSWER)],
  "/gzip-no-content": ["gzip", Buffer.alloc(0), 204],
};
const acceptEncodings: Array<string | string[] | undefined> = [];
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

  it("offers gzip, deflate and brotli, and gives the program the decoded answer, whatever the coding", async () => {
    acceptEncodings.length = 0;
    for (const path of ["/gzip", "/deflate", "/br", "/gzip-then-br"]) {
      const req = request(path);
      const answered = await send(req);
      expect(new TextDecoder().decode(answered.body), path).toBe(ANSWER);
      // The offer is made on the wire only: the request a person approves and the record keeps is unchanged.
      expect(req.headers["accept-encoding"]).toBeUndefined();
    }
    expect(acceptEncodings).toEqual(Array(4).fill("gzip, deflate, br"));
  });

  it("sends a call's own Accept-Encoding instead of the offer", async () => {
    acceptEncodings.length = 0;
    const req = request("/gzip");
    req.headers["accept-encoding"] = "identity";
    await send(req);
    expect(acceptEncodings).toEqual(["identity"]);
  });

  it("refuses a small gzip that inflates past the cap, while inflating, without buffering it", async () => {
    const heapBefore = process.memoryUsage().arrayBuffers;
    const error = await failure(send(request("/gzip-bomb")));
    expect(error.callError.name).toBe("CallFailed");
    expect(error.callError.details).toMatchObject({ reason: "too_large", limitBytes: 1024 * 1024 });
    expect(error.message).toMatch(/decodes to more than 1048576 bytes/);
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(30 * 1024 * 1024);
  });

  it("says an answer that claims an encoding it does not have, or is cut short, is a protocol failure, naming the coding", async () => {
    for (const [path, coding] of [["/not-gzip", "gzip"], ["/not-br", "br"], ["/not-deflate", "deflate"], ["/gzip-cut-short", "gzip"]]) {
      const error = await failure(send(request(path!)));
      expect(error.callError.name, path).toBe("CallFailed");
      expect(error.callError.details, path).toMatchObject({ reason: "protocol" });
      expect(error.message).toMatch(new RegExp(`^the response from http://127\\.0\\.0\\.1:\\d+${path} is declared as ${coding} but does not decode \\([A-Z_0-9]+\\)$`));
    }
  });

  it("gives bytes in an unknown coding as they came, and decodes nothing where there is no body", async () => {
    expect(new TextDecoder().decode((await send(request("/unknown-coding"))).body)).toBe(ANSWER);
    const noContent = await send(request("/gzip-no-content"));
    expect(noContent.status).toBe(204);
    expect(noContent.body.byteLength).toBe(0);
    const head = await send(request("/gzip", "HEAD"));
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
  });
});
