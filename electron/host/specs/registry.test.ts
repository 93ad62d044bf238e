import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiRegistry, type RegistryChange } from "./registry.ts";
import { ingest } from "./ingest.ts";
import type { Artifact } from "../../../shared/artifact.ts";

const fixture = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");
function artifactOf(text: string): Artifact {
  const result = ingest(text);
  if (!result.ok) throw new Error(result.error.message);
  return result.artifact;
}
const swagger = artifactOf(fixture("./fixtures/swagger2-petstore.json"));
const goSwagger = artifactOf(fixture("./fixtures/go-swagger-todos.yaml"));
const fileSource = { kind: "file", path: "/specs/petstore.json" } as const;

let dataDir: string;
let now: number;
const clock = () => new Date(now);
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "wb-registry-"));
  now = Date.parse("2025-05-01T10:00:00Z");
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("ApiRegistry", () => {
  it("registers an API with the spec's default base URL and lists it", () => {
    const registry = ApiRegistry.open(dataDir, { clock });
    expect(registry.firstStart).toBe(true);
    const added = registry.register("petstore2", swagger, {}, fileSource);
    expect(added).toMatchObject({
      ok: true,
      value: {
        name: "petstore2", source: fileSource, specHash: swagger.hash, baseUrl: "https://petstore.swagger.io/v2",
        title: "Swagger Petstore", version: "1.0.7", openapi: "3.0.4", operationCount: 7, warningCount: 1,
        config: { validate: "strict", timeoutMs: 30_000 }, addedAt: "2025-05-01T10:00:00.000Z",
      },
    });
    expect(registry.list().map((a) => a.name)).toEqual(["petstore2"]);
  });

  it("survives a restart, loading the artifact only when asked", () => {
    ApiRegistry.open(dataDir, { clock }).register("petstore2", swagger, { baseUrl: "http://localhost:9000/" }, fileSource);
    const reopened = ApiRegistry.open(dataDir, { clock });
    expect(reopened.firstStart).toBe(false);
    expect(reopened.entry("petstore2")).toMatchObject({ baseUrl: "http://localhost:9000", config: { baseUrl: "http://localhost:9000/" } });
    const got = reopened.get("petstore2");
    if (!got.ok) throw new Error(got.error.message);
    expect(got.value.artifact).toEqual(swagger);
    const again = reopened.get("petstore2");
    expect(again.ok && again.value.artifact).toBe(got.value.artifact);
  });

  it("writes registry.json owner-only", () => {
    ApiRegistry.open(dataDir).register("petstore2", swagger, {}, fileSource);
    expect(statSync(join(dataDir, "registry.json")).mode & 0o777).toBe(0o600);
  });

  it("refuses names that are not JavaScript identifiers or are reserved, saying why", () => {
    const registry = ApiRegistry.open(dataDir);
    expect(registry.register("my-api", swagger, {}, fileSource)).toMatchObject({ ok: false, error: { code: "invalid-name", message: expect.stringContaining('try "my_api"') } });
    expect(registry.register("2fast", swagger, {}, fileSource)).toMatchObject({ ok: false, error: { code: "invalid-name", message: expect.stringContaining("starts with a digit") } });
    expect(registry.register("vault", swagger, {}, fileSource)).toMatchObject({ ok: false, error: { code: "invalid-name", message: expect.stringContaining("reserved") } });
    registry.register("pets", swagger, {}, fileSource);
    expect(registry.register("pets", swagger, {}, fileSource)).toMatchObject({ ok: false, error: { code: "name-taken" } });
  });

  it("names an unknown config option, and an auth scheme the spec lacks", () => {
    const registry = ApiRegistry.open(dataDir);
    expect(registry.register("a", swagger, { retries: 3 } as never, fileSource)).toEqual({ ok: false, error: { code: "invalid-config", message: 'unknown option "retries"' } });
    expect(registry.register("a", swagger, { auth: { scheme: "api_key", extra: 1 } } as never, fileSource)).toEqual({ ok: false, error: { code: "invalid-config", message: 'unknown option "extra" in auth' } });
    expect(registry.register("a", swagger, { auth: { scheme: "bearer" } }, fileSource)).toEqual({
      ok: false, error: { code: "unknown-auth-scheme", message: 'the spec has no security scheme "bearer"; it defines "api_key", "petstore_auth"' },
    });
    expect(registry.register("a", swagger, { auth: { credential: "vault:x/token" } }, fileSource)).toMatchObject({ ok: false, error: { code: "auth-incomplete" } });
    expect(registry.register("a", swagger, { auth: { scheme: "api_key", credential: "vault:petstore/key" } }, fileSource)).toMatchObject({ ok: true });
  });

  it("needs a base URL for a relative server from a file, and resolves it against a URL source", () => {
    const registry = ApiRegistry.open(dataDir);
    expect(registry.register("todos", goSwagger, {}, fileSource)).toMatchObject({ ok: false, error: { code: "base-url-needed" } });
    expect(registry.register("todos", goSwagger, {}, { kind: "url", url: "http://127.0.0.1:8080/swagger.yaml" })).toMatchObject({ ok: true, value: { baseUrl: "http://127.0.0.1:8080/api/v1" } });
  });

  it("updates config and spec, and removes", () => {
    const registry = ApiRegistry.open(dataDir, { clock });
    registry.register("pets", swagger, {}, fileSource);
    now += 60_000;
    const updated = registry.update("pets", { config: { baseUrl: "https://staging.example.com", validate: "warn" } });
    expect(updated).toMatchObject({ ok: true, value: { baseUrl: "https://staging.example.com", config: { validate: "warn" }, addedAt: "2025-05-01T10:00:00.000Z", updatedAt: "2025-05-01T10:01:00.000Z" } });
    expect(registry.update("pets", { config: { validate: "sometimes" } as never })).toMatchObject({ ok: false, error: { code: "invalid-config" } });
    const swapped = registry.update("pets", { artifact: goSwagger, source: { kind: "url", url: "https://todo.example.com/spec.yaml" }, config: {} });
    expect(swapped).toMatchObject({ ok: true, value: { title: "Todo API.", baseUrl: "https://todo.example.com/api/v1", specHash: goSwagger.hash } });
    const got = registry.get("pets");
    expect(got.ok && got.value.artifact.info.title).toBe("Todo API.");
    expect(registry.remove("pets")).toMatchObject({ ok: true, value: { name: "pets" } });
    expect(registry.remove("pets")).toMatchObject({ ok: false, error: { code: "not-found" } });
    expect(ApiRegistry.open(dataDir).list()).toEqual([]);
  });

  it("tells listeners about every change, and a failing listener breaks nothing", () => {
    const registry = ApiRegistry.open(dataDir);
    const seen: RegistryChange[] = [];
    registry.onChange(() => {
      throw new Error("listener bug");
    });
    const stop = registry.onChange((change) => seen.push(change));
    registry.register("pets", swagger, {}, fileSource);
    registry.update("pets", { config: { validate: "off" } });
    registry.remove("pets");
    stop();
    registry.register("pets", swagger, {}, fileSource);
    expect(seen).toEqual([{ kind: "added", name: "pets" }, { kind: "updated", name: "pets" }, { kind: "removed", name: "pets" }]);
  });

  it("sees changes another process made before changing the file itself", () => {
    const app = ApiRegistry.open(dataDir);
    const cli = ApiRegistry.open(dataDir);
    cli.register("fromCli", swagger, {}, fileSource);
    app.register("fromApp", swagger, {}, fileSource);
    expect(ApiRegistry.open(dataDir).list().map((a) => a.name)).toEqual(["fromCli", "fromApp"]);
  });

  it("moves an unreadable registry aside, reports it, and starts empty without deleting anything", () => {
    writeFileSync(join(dataDir, "registry.json"), "{ this is not json");
    const registry = ApiRegistry.open(dataDir, { clock });
    expect(registry.firstStart).toBe(false);
    expect(registry.list()).toEqual([]);
    expect(registry.loadProblem).toMatchObject({ code: "registry-corrupt", message: expect.stringContaining("not valid JSON") });
    expect(readFileSync(registry.loadProblem!.keptAt!, "utf8")).toBe("{ this is not json");
    expect(existsSync(join(dataDir, "registry.json"))).toBe(false);
    expect(registry.register("pets", swagger, {}, fileSource).ok).toBe(true);
  });

  it("does not take a registry moved aside for a first start (the demo API the person removed stays removed)", () => {
    writeFileSync(join(dataDir, "registry.json"), "{ this is not json");
    expect(ApiRegistry.open(dataDir, { clock }).firstStart).toBe(false);
    expect(ApiRegistry.open(dataDir, { clock }).firstStart).toBe(false);
  });

  it("keeps an entry it cannot use, marked unusable with the reason, through later writes, and copies the file once", () => {
    const registry = ApiRegistry.open(dataDir, { clock });
    registry.register("good", swagger, {}, fileSource);
    const file = join(dataDir, "registry.json");
    const data = JSON.parse(readFileSync(file, "utf8"));
    const broken = { ...data.apis[0], name: "broken", source: { kind: "file" } };
    data.apis.push(broken);
    writeFileSync(file, JSON.stringify(data));

    const reopened = ApiRegistry.open(dataDir, { clock });
    expect(reopened.list().map((a) => a.name)).toEqual(["good"]);
    expect(reopened.unusable()).toEqual([{ name: "broken", reason: expect.stringContaining("source"), raw: broken }]);
    expect(reopened.loadProblem).toBeUndefined();
    expect(reopened.notices()).toEqual([expect.stringMatching(/cannot be used: "broken" \(source.*workbench api set <name>.*workbench api remove <name>.*registry\.json\.damaged-/)]);
    expect(reopened.get("broken")).toMatchObject({ ok: false, error: { code: "unusable", message: expect.stringContaining("workbench api remove broken") } });
    expect(reopened.register("broken", swagger, {}, fileSource)).toMatchObject({ ok: false, error: { code: "name-taken" } });

    // Other changes keep it, byte for byte, and the same damage is not copied again by later opens.
    expect(reopened.register("other", swagger, {}, fileSource).ok).toBe(true);
    ApiRegistry.open(dataDir, { clock });
    ApiRegistry.open(dataDir, { clock });
    expect(JSON.parse(readFileSync(file, "utf8")).apis.map((a: { name: string }) => a.name)).toEqual(["good", "other", "broken"]);
    expect(JSON.parse(readFileSync(file, "utf8")).apis[2]).toEqual(broken);
    expect(readdirSync(dataDir).filter((f) => f.startsWith("registry.json."))).toHaveLength(1);

    expect(reopened.remove("broken")).toMatchObject({ ok: true, value: { name: "broken" } });
    expect(ApiRegistry.open(dataDir).unusable()).toEqual([]);
  });

  it("repairs an unusable entry with update, keeping what still parses", () => {
    const registry = ApiRegistry.open(dataDir, { clock });
    registry.register("pets", swagger, { baseUrl: "http://localhost:9000" }, fileSource);
    const file = join(dataDir, "registry.json");
    const data = JSON.parse(readFileSync(file, "utf8"));
    data.apis[0].config.validate = "sometimes"; // a hand edit the config schema refuses
    writeFileSync(file, JSON.stringify(data));
    const reopened = ApiRegistry.open(dataDir, { clock });
    expect(reopened.unusable().map((u) => u.name)).toEqual(["pets"]);
    expect(reopened.update("pets", { config: { validate: "often" } as never })).toMatchObject({ ok: false, error: { code: "unusable", message: expect.stringContaining("still fails") } });
    now += 60_000;
    const repaired = reopened.update("pets", { config: { baseUrl: "http://localhost:9000", validate: "warn" } });
    expect(repaired).toMatchObject({ ok: true, value: { name: "pets", specHash: swagger.hash, source: fileSource, addedAt: "2025-05-01T10:00:00.000Z", updatedAt: "2025-05-01T10:01:00.000Z" } });
    expect(ApiRegistry.open(dataDir).unusable()).toEqual([]);
    expect(ApiRegistry.open(dataDir).get("pets").ok).toBe(true);
  });

  it("names entries without a usable name by their position, and a second entry of one name", () => {
    const registry = ApiRegistry.open(dataDir, { clock });
    registry.register("pets", swagger, {}, fileSource);
    const file = join(dataDir, "registry.json");
    const data = JSON.parse(readFileSync(file, "utf8"));
    data.apis.push(data.apis[0], { title: "no name" }, "not an object");
    writeFileSync(file, JSON.stringify(data));
    const reopened = ApiRegistry.open(dataDir, { clock });
    expect(reopened.unusable().map((u) => [u.name, u.reason])).toEqual([
      ["entry-2", 'a second entry named "pets"'],
      ["entry-3", expect.stringContaining("name")],
      ["entry-4", expect.any(String)],
    ]);
    expect(reopened.remove("entry-3").ok).toBe(true);
    expect(ApiRegistry.open(dataDir).unusable().map((u) => u.name)).toEqual(["entry-2", "entry-3"]);
  });

  it("leaves a registry from a newer workbench alone and refuses to change it", () => {
    const file = join(dataDir, "registry.json");
    writeFileSync(file, JSON.stringify({ format: 2, apis: [{ name: "future" }] }));
    const registry = ApiRegistry.open(dataDir, { clock });
    expect(registry.list()).toEqual([]);
    expect(registry.loadProblem).toMatchObject({ code: "registry-blocked", message: expect.stringContaining("newer workbench (format 2") });
    expect(registry.register("pets", swagger, {}, fileSource)).toMatchObject({ ok: false, error: { code: "registry-blocked" } });
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify({ format: 2, apis: [{ name: "future" }] }));
    expect(readdirSync(dataDir)).toEqual(["registry.json"]);
  });

  it("reports an artifact it cannot load instead of throwing", () => {
    const registry = ApiRegistry.open(dataDir);
    registry.register("pets", swagger, {}, fileSource);
    rmSync(join(dataDir, "artifacts"), { recursive: true });
    expect(ApiRegistry.open(dataDir).get("pets")).toMatchObject({ ok: false, error: { code: "artifact-unavailable" } });
    expect(registry.get("nope")).toMatchObject({ ok: false, error: { code: "not-found" } });
  });
});
