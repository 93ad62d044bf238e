/**
 * The registered APIs, persisted in `<dataDir>/registry.json` (atomic writes,
 * owner-only). Each entry names its spec by hash; the artifacts themselves
 * live in the artifact store and are loaded on first use, then kept.
 *
 * A damaged registry file is never deleted: it is moved aside and reported,
 * and entries that no longer parse are reported by name. Every change is
 * announced to listeners (MCP's tools/list_changed, the UI).
 */
import { copyFileSync, existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { apiConfig, apiNameProblem, type ApiConfigInput } from "../../../shared/api-config.ts";
import type { Artifact } from "../../../shared/artifact.ts";
import { ArtifactStore } from "./artifact-store.ts";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { defaultBaseUrl } from "./base-url.ts";
import type { ApiSource, RegisteredApi, RegistryChange, RegistryResult } from "./registry-types.ts";

export type { ApiSource, RegisteredApi, RegistryChange, RegistryResult } from "./registry-types.ts";

const REGISTRY_FORMAT = 1;

const apiSource = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), path: z.string() }),
  z.object({ kind: z.literal("url"), url: z.string() }),
  z.object({ kind: z.literal("text"), filename: z.string().optional() }),
  z.object({ kind: z.literal("demo") }),
]);
const registeredApi = z.object({
  name: z.string(),
  source: apiSource,
  specHash: z.string().regex(/^[0-9a-f]{64}$/),
  config: apiConfig,
  baseUrl: z.string().optional(),
  title: z.string(),
  version: z.string(),
  openapi: z.string(),
  operationCount: z.number(),
  warningCount: z.number(),
  addedAt: z.string(),
  updatedAt: z.string(),
});

/** Something wrong with the registry file that the person should hear about. */
export interface RegistryProblem {
  code: "registry-corrupt" | "registry-entries-dropped";
  message: string;
  /** Where the unreadable file (or a copy of it) was kept. */
  keptAt: string;
}

export interface RegistryOptions {
  clock?: () => Date;
  store?: ArtifactStore;
}

export class ApiRegistry {
  readonly dataDir: string;
  readonly file: string;
  readonly store: ArtifactStore;
  /** True when this data directory had no registry before: the demo API is added then, and only then. */
  readonly firstStart: boolean;
  /** Set when the registry file could not be read whole at open. */
  loadProblem: RegistryProblem | undefined;
  private apis: RegisteredApi[] = [];
  private readonly artifacts = new Map<string, Artifact>();
  private readonly listeners = new Set<(change: RegistryChange) => void>();
  private readonly clock: () => Date;
  /** registry.json as this registry last read or wrote it, to notice another process's changes. */
  private lastSeen = "";

  private constructor(dataDir: string, opts: RegistryOptions) {
    this.dataDir = dataDir;
    this.file = join(dataDir, "registry.json");
    this.clock = opts.clock ?? (() => new Date());
    this.store = opts.store ?? new ArtifactStore(dataDir);
    this.firstStart = !existsSync(this.file);
    this.reload();
  }

  /** Opens the registry of a data directory (which must exist). Never throws on a damaged file. */
  static open(dataDir: string, opts: RegistryOptions = {}): ApiRegistry {
    return new ApiRegistry(dataDir, opts);
  }

  list(): RegisteredApi[] {
    return this.apis.map((api) => structuredClone(api));
  }

  entry(name: string): RegisteredApi | undefined {
    const api = this.apis.find((a) => a.name === name);
    return api && structuredClone(api);
  }

  /** The entry and its artifact, loaded from the store on first use and kept in memory. */
  get(name: string): RegistryResult<{ entry: RegisteredApi; artifact: Artifact }> {
    const entry = this.apis.find((a) => a.name === name);
    if (!entry) return notFound(name);
    let artifact = this.artifacts.get(entry.specHash);
    if (!artifact) {
      const loaded = this.store.load(entry.specHash);
      if (!loaded.ok) return { ok: false, error: loaded.error };
      artifact = loaded.artifact;
      this.artifacts.set(entry.specHash, artifact);
    }
    return { ok: true, value: { entry: structuredClone(entry), artifact } };
  }

  register(name: string, artifact: Artifact, config: ApiConfigInput, source: ApiSource): RegistryResult<RegisteredApi> {
    const nameProblem = apiNameProblem(name);
    if (nameProblem) return { ok: false, error: { code: "invalid-name", message: nameProblem } };
    this.reload();
    if (this.apis.some((a) => a.name === name)) {
      return { ok: false, error: { code: "name-taken", message: `an API named "${name}" is already registered; remove it first or pick another name` } };
    }
    const now = this.clock().toISOString();
    const built = buildEntry(name, artifact, config, source, now, now);
    if (!built.ok) return built;
    this.store.ensure(artifact);
    this.artifacts.set(artifact.hash, artifact);
    this.apis.push(built.value);
    this.save();
    this.emit({ kind: "added", name });
    return { ok: true, value: structuredClone(built.value) };
  }

  /** Replaces an API's config and/or its spec (artifact and source together); checked like a registration. */
  update(name: string, patch: { config?: ApiConfigInput; artifact?: Artifact; source?: ApiSource }): RegistryResult<RegisteredApi> {
    this.reload();
    const index = this.apis.findIndex((a) => a.name === name);
    if (index < 0) return notFound(name);
    const current = this.apis[index]!;
    let artifact = patch.artifact;
    if (!artifact) {
      const loaded = this.get(name);
      if (!loaded.ok) return loaded;
      artifact = loaded.value.artifact;
    }
    const built = buildEntry(name, artifact, patch.config ?? current.config, patch.source ?? current.source, current.addedAt, this.clock().toISOString());
    if (!built.ok) return built;
    this.store.ensure(artifact);
    this.artifacts.set(artifact.hash, artifact);
    this.apis[index] = built.value;
    this.save();
    this.emit({ kind: "updated", name });
    return { ok: true, value: structuredClone(built.value) };
  }

  remove(name: string): RegistryResult<RegisteredApi> {
    this.reload();
    const index = this.apis.findIndex((a) => a.name === name);
    if (index < 0) return notFound(name);
    const [removed] = this.apis.splice(index, 1);
    this.save();
    this.emit({ kind: "removed", name });
    return { ok: true, value: removed! };
  }

  /**
   * Picks up changes another process made (the CLI's `api add` while the app
   * runs): re-reads registry.json when its contents differ from what this
   * registry last saw, and tells listeners. Cheap enough to call before every run.
   */
  syncFromDisk(): boolean {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      text = "";
    }
    if (text === this.lastSeen) return false;
    const before = JSON.stringify(this.apis);
    this.reload();
    this.lastSeen = text;
    if (JSON.stringify(this.apis) === before) return false;
    this.emit({ kind: "updated", name: "*" });
    return true;
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private emit(change: RegistryChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own; the change has happened either way.
      }
    }
  }

  private save(): void {
    const text = `${JSON.stringify({ format: REGISTRY_FORMAT, apis: this.apis }, null, 2)}\n`;
    writeFileAtomic(this.file, text);
    this.lastSeen = text;
  }

  /** Reads the file again before each change, so a CLI command and the app do not overwrite each other's APIs. */
  private reload(): void {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      this.apis = [];
      return;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      return this.setAside(`it is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    const shape = z.object({ format: z.literal(REGISTRY_FORMAT), apis: z.array(z.unknown()) }).safeParse(data);
    if (!shape.success) return this.setAside("it does not have the registry's shape");
    const apis: RegisteredApi[] = [];
    const dropped: string[] = [];
    for (const raw of shape.data.apis) {
      const entry = registeredApi.safeParse(raw);
      if (entry.success && !apis.some((a) => a.name === entry.data.name)) apis.push(entry.data as RegisteredApi);
      else dropped.push(typeof (raw as { name?: unknown })?.name === "string" ? `"${(raw as { name: string }).name}"` : "an unnamed entry");
    }
    this.apis = apis;
    if (dropped.length > 0) {
      const keptAt = this.asidePath();
      copyFileSync(this.file, keptAt);
      this.loadProblem = {
        code: "registry-entries-dropped",
        message: `registry.json has entries that could not be read (${dropped.join(", ")}); they were left out, and the file as it was is kept at ${keptAt}`,
        keptAt,
      };
    }
  }

  private setAside(why: string): void {
    const keptAt = this.asidePath();
    renameSync(this.file, keptAt);
    this.apis = [];
    this.loadProblem = { code: "registry-corrupt", message: `registry.json could not be read: ${why}. It was moved to ${keptAt} and the workbench started with no APIs`, keptAt };
  }

  private asidePath(): string {
    return `${this.file}.unreadable-${this.clock().toISOString().replace(/[:.]/g, "-")}`;
  }
}

function buildEntry(name: string, artifact: Artifact, input: ApiConfigInput, source: ApiSource, addedAt: string, updatedAt: string): RegistryResult<RegisteredApi> {
  const parsed = apiConfig.safeParse(input);
  if (!parsed.success) return { ok: false, error: { code: "invalid-config", message: describeConfigIssues(parsed.error.issues) } };
  const config = parsed.data;
  const auth = config.auth;
  if (auth?.scheme !== undefined && !Object.hasOwn(artifact.securitySchemes, auth.scheme)) {
    const known = Object.keys(artifact.securitySchemes);
    const hint = known.length ? `it defines ${known.map((k) => `"${k}"`).join(", ")}` : "it defines none, so describe the scheme inline instead";
    return { ok: false, error: { code: "unknown-auth-scheme", message: `the spec has no security scheme "${auth.scheme}"; ${hint}` } };
  }
  if (auth?.credential !== undefined && auth.scheme === undefined && auth.inline === undefined) {
    return { ok: false, error: { code: "auth-incomplete", message: "a credential needs a security scheme (from the spec) or an inline scheme that says how to send it" } };
  }
  let baseUrl = config.baseUrl?.replace(/\/+$/, "");
  if (baseUrl === undefined && source.kind !== "demo") {
    const fallback = defaultBaseUrl(artifact.servers, source);
    if (!fallback.ok) return fallback;
    baseUrl = fallback.url;
  }
  return {
    ok: true,
    value: {
      name,
      source,
      specHash: artifact.hash,
      config,
      ...(baseUrl === undefined ? {} : { baseUrl }),
      title: artifact.info.title,
      version: artifact.info.version,
      openapi: artifact.openapi,
      operationCount: artifact.operations.length,
      warningCount: artifact.warnings.length,
      addedAt,
      updatedAt,
    },
  };
}

/** zod's issues as a person reads them: `unknown option "retries"`, `baseUrl: Invalid URL`. */
export function describeConfigIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.join(".") : "";
      if (issue.code === "unrecognized_keys") {
        const keys = issue.keys.map((k) => `"${k}"`).join(", ");
        return `unknown option${issue.keys.length > 1 ? "s" : ""} ${keys}${where ? ` in ${where}` : ""}`;
      }
      return `${where || "config"}: ${issue.message}`;
    })
    .join("; ");
}

function notFound(name: string): { ok: false; error: { code: string; message: string } } {
  return { ok: false, error: { code: "not-found", message: `no API named "${name}" is registered` } };
}
