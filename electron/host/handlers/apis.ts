/**
 * `apis.*`: the registered APIs for the sidebar and the editor, previewing a
 * spec before registering it (its repair report and a name that will be
 * accepted), and adding, reconfiguring and removing APIs.
 */
import type { ApiConfigInput } from "../../../shared/api-config.ts";
import { apiNameProblem } from "../../../shared/api-config.ts";
import type { Artifact } from "../../../shared/artifact.ts";
import type { ApiSummary, Ack, IngestPreview, OperationRow, SpecSource } from "../../../shared/contract.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { loadSpecSource, type LoadedSpec } from "../specs/source.ts";
import { isHostOnlyField } from "../vault/names.ts";
import type { RegisteredApi } from "../specs/registry.ts";
import type { Workbench } from "../workbench.ts";
import type { HandlerContext, HandlerGroup } from "./context.ts";
import { buildEditorDeclarations } from "./declarations.ts";
import { notFound } from "./failure.ts";

type ApiChannels = "apis.list" | "apis.operations" | "apis.operation" | "apis.schema" | "apis.warnings" | "apis.declarations" | "apis.preview" | "apis.add" | "apis.update" | "apis.remove";

export function apiHandlers(ctx: HandlerContext): HandlerGroup<ApiChannels> {
  const { workbench } = ctx;
  const declarations = declarationsCache(workbench);
  return {
    "apis.list": async () => {
      await workbench.apis.refresh();
      return workbench.registry.list().flatMap((entry) => {
        const loaded = workbench.registry.get(entry.name);
        return loaded.ok ? [summary(entry, loaded.value.artifact, workbench.apis.get(entry.name)?.baseUrl)] : [];
      });
    },
    "apis.operations": async ({ api }) =>
      artifactOf(workbench, api).operations.map((op): OperationRow => ({ id: op.id, method: op.method, path: op.path, ...(op.summary ? { summary: op.summary } : {}), tags: op.tags, deprecated: op.deprecated })),
    "apis.operation": async ({ api, id }) => {
      const op = artifactOf(workbench, api).operations.find((o) => o.id === id);
      if (!op) throw notFound(`${api} has no operation "${id}"; list them with apis.operations`);
      return op;
    },
    "apis.schema": async ({ api, name }) => {
      const schemas = artifactOf(workbench, api).schemas;
      return Object.hasOwn(schemas, name) ? schemas[name]! : null;
    },
    "apis.warnings": async ({ api }) => artifactOf(workbench, api).warnings,
    "apis.declarations": async () => ({ dts: declarations() }),
    "apis.preview": async ({ source }) => preview(workbench, await load(source, ctx)),
    "apis.add": async ({ name, source, config }) => add(workbench, name, await load(source, ctx), config ?? {}),
    "apis.update": async ({ name, config }): Promise<Ack> => {
      const updated = workbench.registry.update(name, { config });
      if (!updated.ok) return { ok: false, message: updated.error.message };
      return { ok: true, message: `saved the settings of ${name}` };
    },
    "apis.remove": async ({ name }): Promise<Ack> => {
      const removed = workbench.registry.remove(name);
      if (!removed.ok) return { ok: false, message: removed.error.message };
      return { ok: true, message: `removed ${name}; its runs stay in the history` };
    },
  };
}

function artifactOf(workbench: Workbench, api: string): Artifact {
  const loaded = workbench.registry.get(api);
  if (!loaded.ok) throw notFound(loaded.error.code === "not-found" ? `no API named "${api}" is registered` : `${api}: ${loaded.error.message}`);
  return loaded.value.artifact;
}

function summary(entry: RegisteredApi, artifact: Artifact, resolvedBaseUrl: string | undefined): ApiSummary {
  const source = entry.source;
  const location = source.kind === "file" ? source.path : source.kind === "url" ? source.url : source.kind === "text" ? source.filename : undefined;
  return {
    name: entry.name,
    title: entry.title,
    version: entry.version,
    openapi: entry.openapi,
    operationCount: entry.operationCount,
    baseUrl: resolvedBaseUrl ?? entry.baseUrl ?? "",
    source: { kind: source.kind, ...(location ? { location } : {}) },
    config: entry.config,
    warningCount: entry.warningCount,
    tags: artifact.tags,
    securitySchemes: artifact.securitySchemes,
  };
}

async function load(source: SpecSource, ctx: HandlerContext): Promise<LoadedSpec> {
  if (source.kind === "text") return loadSpecSource({ text: source.text, ...(source.filename ? { filename: source.filename } : {}) });
  return loadSpecSource(source.url, { fetch: ctx.fetch ?? globalThis.fetch });
}

function preview(workbench: Workbench, loaded: LoadedSpec): IngestPreview {
  if (!loaded.ok) return { ok: false, warnings: [], error: { code: loaded.error.code, pointer: "", message: loaded.error.message } };
  const { result } = workbench.registry.store.ingest(loaded.text);
  if (!result.ok) return { ok: false, warnings: result.warnings, error: result.error };
  const artifact = result.artifact;
  const taken = new Set(workbench.registry.list().map((a) => a.name));
  return {
    ok: true,
    title: artifact.info.title,
    version: artifact.info.version,
    openapi: artifact.openapi,
    operations: artifact.operations.length,
    warnings: artifact.warnings,
    suggestedName: suggestApiName(artifact.info.title, loaded.label, taken),
    servers: artifact.servers,
    securitySchemes: Object.keys(artifact.securitySchemes),
  };
}

function add(workbench: Workbench, name: string, loaded: LoadedSpec, config: ApiConfigInput): Ack {
  const problem = apiNameProblem(name);
  if (problem) return { ok: false, message: problem };
  if (!loaded.ok) return { ok: false, message: loaded.error.message };
  const { result } = workbench.registry.store.ingest(loaded.text);
  if (!result.ok) return { ok: false, message: `${loaded.label} is not a usable spec: ${result.error.message}${result.error.pointer ? ` at ${result.error.pointer}` : ""}` };
  const added = workbench.registry.register(name, result.artifact, config, loaded.source);
  if (!added.ok) return { ok: false, message: added.error.message };
  const warnings = added.value.warningCount;
  return { ok: true, message: `added ${name}: ${added.value.operationCount} operations${warnings ? `, ${warnings} repair warnings` : ""}` };
}

/**
 * A name the registry will accept: the title (or the file or host it came
 * from) in lowerCamelCase, made a JavaScript identifier, not reserved and not
 * taken (a number is added when it is).
 */
export function suggestApiName(title: string, label: string, taken: Set<string>): string {
  const fromLabel = label.replace(/^[a-z]+:\/\/(www\.)?/i, "").replace(/[/?#].*$/, "").replace(/\.(json|ya?ml)$/i, "");
  const words = (title.trim() || fromLabel).split(/[^A-Za-z0-9]+/).filter(Boolean).slice(0, 4);
  let base = words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join("") || "api";
  if (/^[0-9]/.test(base)) base = `api${base}`;
  if (apiNameProblem(base)) base = `${base}Api`;
  let name = base;
  for (let n = 2; taken.has(name) || apiNameProblem(name); n++) name = `${base}${n}`;
  return name;
}

/** The editor's .d.ts, rebuilt only when an API, its spec, its context values or the vault's names change. */
function declarationsCache(workbench: Workbench): () => string {
  let key = "";
  let dts = "";
  return () => {
    const apis = workbench.registry.list().flatMap((entry) => {
      const loaded = workbench.registry.get(entry.name);
      return loaded.ok ? [{ name: entry.name, artifact: loaded.value.artifact, context: (entry.config.sandboxGlobals ?? {}) as JsonValue }] : [];
    });
    const vaultItems = workbench.vault
      .list()
      .map((item) => ({ name: item.name, fields: item.fields.map((f) => f.name).filter((f) => !isHostOnlyField(f)) }));
    const nextKey = JSON.stringify([apis.map((a) => [a.name, a.artifact.hash, a.context]), vaultItems]);
    if (nextKey !== key) {
      dts = buildEditorDeclarations(apis, vaultItems);
      key = nextKey;
    }
    return dts;
  };
}
