/**
 * The registered APIs as the proxy and the tools see them: each with its
 * artifact, parsed config and effective base URL (the demo API's is known only
 * once its in-process server runs). Rebuilt when the registry changes; one-off
 * APIs (`--spec` on the command line) sit on top without being registered.
 */
import type { ApiTarget } from "./proxy/types.ts";
import { DEMO_BOUND_BASE_URL, resolveBaseUrl, type DemoUpstream } from "./specs/demo-upstream.ts";
import type { ApiRegistry } from "./specs/registry.ts";

export class ApiDirectory {
  readonly #registry: ApiRegistry;
  readonly #demo: DemoUpstream;
  readonly #extra = new Map<string, ApiTarget>();
  #targets: Map<string, ApiTarget> | undefined;
  readonly #problems = new Map<string, string>();

  constructor(registry: ApiRegistry, demo: DemoUpstream) {
    this.#registry = registry;
    this.#demo = demo;
    registry.onChange(() => this.invalidate());
  }

  invalidate(): void {
    this.#targets = undefined;
  }

  /** Adds an API for this process only (not registered, not persisted). */
  addOneOff(target: ApiTarget): void {
    this.#extra.set(target.name, target);
    this.invalidate();
  }

  /** Resolves every API's target (starting the demo server if the demo API is registered). */
  async refresh(): Promise<Map<string, ApiTarget>> {
    if (this.#targets) return this.#targets;
    const targets = new Map<string, ApiTarget>();
    this.#problems.clear();
    for (const entry of this.#registry.list()) {
      const loaded = this.#registry.get(entry.name);
      if (!loaded.ok) {
        this.#problems.set(entry.name, loaded.error.message);
        continue;
      }
      try {
        const baseUrl = await resolveBaseUrl(entry, this.#demo);
        const runtimeUrl = entry.baseUrl === undefined && entry.source.kind === "demo";
        targets.set(entry.name, { name: entry.name, artifact: loaded.value.artifact, config: entry.config, baseUrl, ...(runtimeUrl ? { boundBaseUrl: DEMO_BOUND_BASE_URL } : {}) });
      } catch (err) {
        this.#problems.set(entry.name, err instanceof Error ? err.message : String(err));
      }
    }
    for (const [name, target] of this.#extra) targets.set(name, target);
    this.#targets = targets;
    return targets;
  }

  /** The resolved targets; call `refresh()` first. */
  get(name: string): ApiTarget | undefined {
    return this.#targets?.get(name);
  }

  list(): ApiTarget[] {
    return [...(this.#targets?.values() ?? [])];
  }

  /** APIs that could not be made ready, and why (shown to people, not to programs). */
  problems(): Map<string, string> {
    return new Map(this.#problems);
  }
}
