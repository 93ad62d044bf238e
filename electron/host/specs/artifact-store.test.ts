import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArtifactStore } from "./artifact-store.ts";
import { specHash } from "./ingest.ts";

const spec = readFileSync(new URL("../../../specs/demo/petstore.yaml", import.meta.url), "utf8");
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "wb-store-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("ArtifactStore", () => {
  it("ingests once, then serves the cached artifact for the same text", () => {
    const store = new ArtifactStore(dataDir);
    const first = store.ingest(spec);
    expect(first.cached).toBe(false);
    const second = new ArtifactStore(dataDir).ingest(spec);
    expect(second.cached).toBe(true);
    expect(second.result).toEqual(first.result);
  });

  it("writes owner-only files named by the spec's sha256", () => {
    new ArtifactStore(dataDir).ingest(spec);
    const file = join(dataDir, "artifacts", `${specHash(spec)}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "artifacts")).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ format: 1, hash: specHash(spec), info: { title: "Demo Pet Store" } });
  });

  it("re-ingests a damaged cache file instead of failing", () => {
    const store = new ArtifactStore(dataDir);
    const { result } = store.ingest(spec);
    const file = join(dataDir, "artifacts", `${specHash(spec)}.json`);
    writeFileSync(file, '{"format": 1, "hash": "trunc');
    expect(store.ingest(spec)).toEqual({ result, cached: false });
    writeFileSync(file, "garbage");
    const loaded = store.load(specHash(spec));
    expect(loaded).toMatchObject({ ok: true, rebuilt: expect.stringContaining("damaged") });
    expect(store.load(specHash(spec))).toEqual({ ok: true, artifact: (result as { artifact: unknown }).artifact });
  });

  it("says so when an artifact is damaged and its spec text is gone", () => {
    const store = new ArtifactStore(dataDir);
    store.ingest(spec);
    const hash = specHash(spec);
    writeFileSync(join(dataDir, "artifacts", `${hash}.json`), "{}");
    rmSync(join(dataDir, "artifacts", `${hash}.source`));
    expect(store.load(hash)).toMatchObject({ ok: false, error: { code: "artifact-unavailable", message: expect.stringContaining("add the API again") } });
    expect(store.load("not-a-hash")).toMatchObject({ ok: false });
  });

  it("does not cache a failed ingest", () => {
    const store = new ArtifactStore(dataDir);
    expect(store.ingest("not: [an openapi").result.ok).toBe(false);
    expect(store.ingest("not: [an openapi").cached).toBe(false);
  });

  it("serves the stored JSON text for readers that parse it themselves", () => {
    const store = new ArtifactStore(dataDir);
    store.ingest(spec);
    expect(JSON.parse(store.text(specHash(spec))!).operations).toHaveLength(10);
    expect(store.text("0".repeat(64))).toBeUndefined();
  });
});
