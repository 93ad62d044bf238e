/**
 * First start: a data directory that has never had a registry gets the demo
 * pet store registered as `petstore`, so a new user can try everything
 * offline. Only then: an API the person removed stays removed.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../common/assets.ts";
import type { ApiRegistry } from "./registry.ts";
import type { RegistryResult, RegisteredApi } from "./registry-types.ts";

export const DEMO_API_NAME = "petstore";
export const DEMO_SPEC_PATH = assetPath("demoSpec");
/** The lead's first-start code stores the demo server's token ("demo-token") under this vault reference. */
export const DEMO_CREDENTIAL = "vault:demo/token";

/** Registers the demo API on a first start; the entry when it did, undefined when there was nothing to do. */
export function ensureDemoApi(registry: ApiRegistry): RegistryResult<RegisteredApi | undefined> {
  if (!registry.firstStart || registry.list().length > 0) return { ok: true, value: undefined };
  const { result } = registry.store.ingest(readFileSync(DEMO_SPEC_PATH, "utf8"));
  if (!result.ok) return { ok: false, error: { code: "demo-spec-broken", message: `the bundled demo spec does not ingest: ${result.error.message}` } };
  return registry.register(DEMO_API_NAME, result.artifact, { auth: { scheme: "bearerAuth", credential: DEMO_CREDENTIAL } }, { kind: "demo" });
}
