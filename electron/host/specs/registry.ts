/**
 * The registered APIs, persisted in `<dataDir>/registry.json` (through the
 * common JSON-file store: atomic, owner-only, moved aside when unreadable).
 * Each entry names its spec by hash; the artifacts themselves live in the
 * artifact store and are loaded on first use, then kept.
 *
 * An entry that does not parse is kept as found and reported as unusable
 * (registry-file.ts) until `update` repairs it or `remove` removes it. Every
 * change is announced to listeners (MCP's tools/list_changed, the UI).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { apiConfig, apiNameProblem, type ApiConfigInput } from "../../../shared/api-config.ts";
import type { Artifact } from "../../../shared/artifact.ts";
import { keptCopiesOf } from "../common/json-file.ts";
import { ArtifactStore } from "./artifact-store.ts";
import { defaultBaseUrl } from "./base-url.ts";
import { apiSource, readRegistryFile, writeRegistryFile, type UnusableApi } from "./registry-file.ts";
import type { ApiSource, RegisteredApi, RegistryChange, RegistryResult } from "./registry-types.ts";

export type { ApiSource, RegisteredApi, RegistryChange, RegistryResult } from "./registry-types.ts";
export type { UnusableApi } from "./registry-file.ts";

/** Something wrong with the registry file as a whole that the person should hear about. */
export interface RegistryProblem {
  /** `registry-corrupt`: moved aside; `registry-blocked`: from a newer workbench or unreadable, left alone and not written. */
  code: "registry-corrupt" | "registry-blocked";
  message: string;
  /** Where the unreadable file was kept. */
  keptAt?: string;
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
  /** Set when the registry file could not be read whole (at open or a later re-read). */
  loadProblem: RegistryProblem | undefined;
  private apis: RegisteredApi[] = [];
  private broken: UnusableApi[] = [];
  /** Where a copy of the file with its unusable entries was kept (made once per distinct damage). */
  private brokenCopy: string | undefined;
  /** Why registry.json must not be written (newer format, unreadable); undefined when it may. */
  private blocked: string | undefined;
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
    // A registry moved aside by an earlier recovery is not a first start: the demo API the person removed stays removed.
    this.firstStart = !existsSync(this.file) && keptCopiesOf(this.file, existsSync(dataDir) ? readdirSync(dataDir) : []).length === 0;
    this.reload();
  }

  /** Opens the registry of a data directory (which must exist). Never throws on a damaged file. */
  static open(dataDir: string, opts: RegistryOptions = {}): ApiRegistry {
    return new ApiRegistry(dataDir, opts);
  }

  list(): RegisteredApi[] {
    return this.apis.map((api) => structuredClone(api));
  }

  /** Entries kept in registry.json that cannot be used until repaired (`update`) or removed. */
  unusable(): UnusableApi[] {
    return this.broken.map((entry) => structuredClone(entry));
  }

  /** What a person should hear about this registry at start: the file's state and each unusable entry. */
  notices(): string[] {
    const notices = this.loadProblem ? [this.loadProblem.message] : [];
    if (this.broken.length > 0) {
      const list = this.broken.map((u) => `"${u.name}" (${u.reason})`).join(", ");
      notices.push(
        `registry.json has ${this.broken.length === 1 ? "an entry" : `${this.broken.length} entries`} that cannot be used: ${list}. ` +
          `${this.broken.length === 1 ? "It is" : "They are"} kept as found; fix with \`workbench api set <name> ...\` or remove with \`workbench api remove <name>\`` +
          `${this.brokenCopy ? ` (a copy of the file as found is at ${this.brokenCopy})` : ""}.`,
      );
    }
    return notices;
  }

  entry(name: string): RegisteredApi | undefined {
    const api = this.apis.find((a) => a.name === name);
    return api && structuredClone(api);
  }

  /** The entry and its artifact, loaded from the store on first use and kept in memory. */
  get(name: string): RegistryResult<{ entry: RegisteredApi; artifact: Artifact }> {
    const entry = this.apis.find((a) => a.name === name);
    if (!entry) return this.missing(name);
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
    if (this.blocked) return this.blockedError();
    if (this.apis.some((a) => a.name === name)) {
      return { ok: false, error: { code: "name-taken", message: `an API named "${name}" is already registered; remove it first or pick another name` } };
    }
    const broken = this.broken.find((u) => u.name === name);
    if (broken) return { ok: false, error: { code: "name-taken", message: `${describeUnusable(broken)}; fix it with \`workbench api set ${name} ...\`, or remove it first with \`workbench api remove ${name}\`` } };
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

  /**
   * Replaces an API's config and/or its spec (artifact and source together);
   * checked like a registration. On an unusable entry this is the repair: what
   * the patch does not give is taken from the stored entry where it still
   * parses (its spec by hash, its source, its config), and the entry becomes
   * usable only if the result passes every check a registration does.
   */
  update(name: string, patch: RegistryPatch): RegistryResult<RegisteredApi> {
    this.reload();
    if (this.blocked) return this.blockedError();
    const brokenIndex = this.broken.findIndex((u) => u.name === name);
    if (brokenIndex >= 0) return this.repair(brokenIndex, patch);
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

  /** Removes an API, or an unusable entry by the name `unusable()` gives it. */
  remove(name: string): RegistryResult<RegisteredApi | UnusableApi> {
    this.reload();
    if (this.blocked) return this.blockedError();
    const brokenIndex = this.broken.findIndex((u) => u.name === name);
    const index = this.apis.findIndex((a) => a.name === name);
    if (index < 0 && brokenIndex < 0) return notFound(name);
    const [removed] = index >= 0 ? this.apis.splice(index, 1) : this.broken.splice(brokenIndex, 1);
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
    const before = JSON.stringify([this.apis, this.broken]);
    this.reload();
    if (JSON.stringify([this.apis, this.broken]) === before) return false;
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
    this.lastSeen = writeRegistryFile(this.file, { apis: this.apis, unusable: this.broken });
  }

  /** Reads the file again before each change, so a CLI command and the app do not overwrite each other's APIs. */
  private reload(): void {
    const read = readRegistryFile(this.file, this.clock);
    this.apis = read.contents.apis;
    this.broken = read.contents.unusable;
    this.blocked = undefined;
    switch (read.status) {
      case "ok":
      case "missing":
        this.lastSeen = read.text;
        this.brokenCopy = read.copiedTo;
        return;
      case "moved-aside":
        this.lastSeen = "";
        this.loadProblem = {
          code: "registry-corrupt",
          message: `registry.json could not be read: ${read.problem}. It was moved to ${read.keptAt} and the workbench started with no APIs`,
          keptAt: read.keptAt,
        };
        return;
      case "blocked":
        this.lastSeen = "";
        this.blocked = `registry.json is left as it is because ${read.problem}`;
        this.loadProblem = { code: "registry-blocked", message: `${this.blocked}; no APIs are available and none can be added or changed until then` };
        return;
    }
  }

  private repair(index: number, patch: RegistryPatch): RegistryResult<RegisteredApi> {
    const broken = this.broken[index]!;
    const raw = (typeof broken.raw === "object" && broken.raw !== null ? broken.raw : {}) as Record<string, unknown>;
    const cannot = (what: string) => ({ ok: false as const, error: { code: "unusable", message: `${describeUnusable(broken)}, and ${what}` } });
    if (apiNameProblem(broken.name)) return cannot(`it has no usable name to keep; remove it with \`workbench api remove ${broken.name}\` and add the API again`);
    const source = patch.source ?? apiSource.safeParse(raw.source).data;
    if (!source) return cannot("its spec source is damaged too: give the spec again");
    let artifact = patch.artifact;
    if (!artifact) {
      const loaded = this.store.load(typeof raw.specHash === "string" ? raw.specHash : "");
      if (!loaded.ok) return cannot(`its parsed spec cannot be loaded (${loaded.error.message}): give the spec again`);
      artifact = loaded.artifact;
    }
    const now = this.clock().toISOString();
    const config = (patch.config ?? raw.config ?? {}) as ApiConfigInput;
    const built = buildEntry(broken.name, artifact, config, source, typeof raw.addedAt === "string" ? raw.addedAt : now, now);
    if (!built.ok) return cannot(`repaired as given it still fails: ${built.error.message}`);
    this.store.ensure(artifact);
    this.artifacts.set(artifact.hash, artifact);
    this.broken.splice(index, 1);
    this.apis.push(built.value);
    this.save();
    this.emit({ kind: "updated", name: broken.name });
    return { ok: true, value: structuredClone(built.value) };
  }

  private missing(name: string): { ok: false; error: { code: string; message: string } } {
    const broken = this.broken.find((u) => u.name === name);
    if (!broken) return notFound(name);
    return { ok: false, error: { code: "unusable", message: `${describeUnusable(broken)}; fix it with \`workbench api set ${name} ...\` or remove it with \`workbench api remove ${name}\`` } };
  }

  private blockedError(): { ok: false; error: { code: string; message: string } } {
    return { ok: false, error: { code: "registry-blocked", message: this.blocked! } };
  }
}

export interface RegistryPatch {
  config?: ApiConfigInput;
  artifact?: Artifact;
  source?: ApiSource;
}

function describeUnusable(entry: UnusableApi): string {
  return `the API "${entry.name}" is registered but cannot be used (registry.json: ${entry.reason})`;
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
