import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiRegistry } from "./registry.ts";
import { DEMO_API_NAME, DEMO_CREDENTIAL, ensureDemoApi } from "./demo-api.ts";
import { DemoUpstream, resolveBaseUrl } from "./demo-upstream.ts";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "wb-demo-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("ensureDemoApi", () => {
  it("registers the demo pet store on a first start, with its vault credential", () => {
    const registry = ApiRegistry.open(dataDir);
    const result = ensureDemoApi(registry);
    expect(result).toMatchObject({ ok: true, value: { name: DEMO_API_NAME, source: { kind: "demo" }, title: "Demo Pet Store", operationCount: 10, warningCount: 0 } });
    expect(registry.entry(DEMO_API_NAME)!.config.auth).toEqual({ scheme: "bearerAuth", credential: DEMO_CREDENTIAL });
    expect(registry.entry(DEMO_API_NAME)!.baseUrl).toBeUndefined();
    expect(ensureDemoApi(registry)).toEqual({ ok: true, value: undefined });
  });

  it("does not bring the demo back once the person removed it", () => {
    const first = ApiRegistry.open(dataDir);
    ensureDemoApi(first);
    first.remove(DEMO_API_NAME);
    const later = ApiRegistry.open(dataDir);
    expect(ensureDemoApi(later)).toEqual({ ok: true, value: undefined });
    expect(later.list()).toEqual([]);
  });
});

describe("the demo upstream", () => {
  it("starts the demo server on first use and sends the demo API there", async () => {
    const registry = ApiRegistry.open(dataDir);
    ensureDemoApi(registry);
    const demo = new DemoUpstream();
    try {
      const url = await resolveBaseUrl(registry.entry(DEMO_API_NAME)!, demo);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await demo.url()).toBe(url);
      const res = await fetch(`${url}/pets?limit=1`);
      expect(await res.json()).toMatchObject({ total: 12, items: [{ id: 1 }] });
    } finally {
      await demo.close();
    }
  });

  it("serves every operation of the demo spec (no route missing)", async () => {
    const registry = ApiRegistry.open(dataDir);
    ensureDemoApi(registry);
    const got = registry.get(DEMO_API_NAME);
    if (!got.ok) throw new Error(got.error.message);
    const demo = new DemoUpstream();
    try {
      const url = await demo.url();
      for (const op of got.value.artifact.operations) {
        const path = op.path.replace(/\{[^}]+\}/g, "1");
        const res = await fetch(url + path, { method: op.method.toUpperCase(), headers: { authorization: "Bearer demo-token", "content-type": "application/json" }, body: op.requestBody ? "{}" : undefined });
        const body = res.status === 204 ? undefined : ((await res.json()) as { message?: string });
        const unrouted = res.status === 405 || Boolean(body?.message?.startsWith("no route"));
        expect(unrouted, `${op.method} ${op.path} has no route in the demo server`).toBe(false);
        expect(Object.keys(op.responses), `${op.id} answered ${res.status}, which the spec does not list`).toContain(String(res.status));
      }
    } finally {
      await demo.close();
    }
  });

  it("uses a registered API's own base URL", async () => {
    const demo = new DemoUpstream();
    expect(await resolveBaseUrl({ name: "x", baseUrl: "https://api.example.com", source: { kind: "url", url: "https://api.example.com/spec" } } as never, demo)).toBe("https://api.example.com");
  });
});
