import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSpecSource } from "./source.ts";

const SPEC = '{"openapi": "3.1.0", "info": {"title": "Served", "version": "1"}, "paths": {}}';
let server: Server;
let base: string;
let dir: string;
const pending = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wb-source-"));
  server = createServer((req, res) => {
    if (req.url === "/spec.json") return void res.writeHead(200, { "content-type": "application/json" }).end(SPEC);
    if (req.url === "/moved") return void res.writeHead(302, { location: "/spec.json" }).end();
    if (req.url === "/big-declared") return void res.writeHead(200, { "content-length": String(10_000) }).end("x".repeat(10_000));
    if (req.url === "/big-streamed") {
      // No content-length: the limit must be enforced while reading.
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = "y".repeat(1_000);
      let sent = 0;
      const push = () => {
        while (sent < 100 && res.write(chunk)) sent += 1;
        if (sent < 100) res.once("drain", push);
        else res.end();
      };
      return push();
    }
    if (req.url === "/slow") {
      res.writeHead(200);
      res.write("{");
      const timer = setTimeout(() => res.end("}"), 5_000);
      pending.add(timer);
      return;
    }
    res.writeHead(404, "Not Found").end("nope");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const timer of pending) clearTimeout(timer);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("loadSpecSource from a URL", () => {
  it("fetches the text and records the URL", async () => {
    expect(await loadSpecSource(`${base}/spec.json`)).toEqual({ ok: true, text: SPEC, source: { kind: "url", url: `${base}/spec.json` }, label: `${base}/spec.json` });
    expect(await loadSpecSource(`${base}/moved`)).toMatchObject({ ok: true, text: SPEC });
  });

  it("reports an HTTP error status", async () => {
    expect(await loadSpecSource(`${base}/missing`)).toEqual({ ok: false, error: { code: "http-error", message: `GET ${base}/missing answered 404 Not Found` } });
  });

  it("refuses a body over the limit, whether declared or only streamed", async () => {
    expect(await loadSpecSource(`${base}/big-declared`, { maxBytes: 5_000 })).toMatchObject({ ok: false, error: { code: "too-large", message: expect.stringContaining("10 KB") } });
    expect(await loadSpecSource(`${base}/big-streamed`, { maxBytes: 20_000 })).toMatchObject({ ok: false, error: { code: "too-large", message: expect.stringContaining("stopped reading") } });
  });

  it("gives up on a server that stalls mid-body", async () => {
    expect(await loadSpecSource(`${base}/slow`, { timeoutMs: 200 })).toMatchObject({ ok: false, error: { code: "timeout", message: expect.stringContaining("0.2 s") } });
  });

  it("reports a refused connection by its code", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await loadSpecSource(`http://127.0.0.1:${port}/spec.json`)).toMatchObject({ ok: false, error: { code: "fetch-failed", message: expect.stringContaining("ECONNREFUSED") } });
  });

  it("uses the injected fetch", async () => {
    const seen: string[] = [];
    const fakeFetch = (async (url: string | URL | Request) => {
      seen.push(String(url));
      return new Response("openapi: 3.0.0", { status: 200 });
    }) as typeof fetch;
    expect(await loadSpecSource("https://specs.example.com/api.yaml", { fetch: fakeFetch })).toMatchObject({ ok: true, text: "openapi: 3.0.0" });
    expect(seen).toEqual(["https://specs.example.com/api.yaml"]);
  });
});

describe("loadSpecSource from a file or text", () => {
  it("reads a file, by path or file: URL, and records its absolute path", async () => {
    const path = join(dir, "spec.yaml");
    writeFileSync(path, "openapi: 3.1.0\n");
    expect(await loadSpecSource("spec.yaml", { cwd: dir })).toEqual({ ok: true, text: "openapi: 3.1.0\n", source: { kind: "file", path }, label: "spec.yaml" });
    expect(await loadSpecSource(pathToFileURL(path).href)).toMatchObject({ ok: true, source: { kind: "file", path } });
  });

  it("says what is wrong with a path", async () => {
    expect(await loadSpecSource(join(dir, "nope.yaml"))).toMatchObject({ ok: false, error: { code: "not-found", message: expect.stringContaining("no such file") } });
    expect(await loadSpecSource(dir)).toMatchObject({ ok: false, error: { code: "not-a-file" } });
    writeFileSync(join(dir, "big.json"), "x".repeat(2_000));
    expect(await loadSpecSource(join(dir, "big.json"), { maxBytes: 1_000 })).toMatchObject({ ok: false, error: { code: "too-large" } });
    expect(await loadSpecSource("ftp://example.com/spec.yaml")).toMatchObject({ ok: false, error: { code: "unsupported-source" } });
  });

  it("takes pasted text as it is", async () => {
    expect(await loadSpecSource({ text: "openapi: 3.0.0", filename: "dropped.yaml" })).toEqual({ ok: true, text: "openapi: 3.0.0", source: { kind: "text", filename: "dropped.yaml" }, label: "dropped.yaml" });
  });
});
