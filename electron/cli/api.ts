/**
 * `workbench api add|set|show|list|remove`: the registered APIs of a data
 * directory and every option of each (api-options.ts). Each command opens the
 * registry the app uses, so a data directory's first command also registers
 * the demo API, as the app's first start does; a running app or serve picks
 * the change up at once.
 */
import type { Command } from "commander";
import { apiNameProblem, VAULT_REF_PATTERN } from "../../shared/api-config.ts";
import { ensureDataDir, resolveDataDir } from "../host/data-dir.ts";
import { ensureDemoApi } from "../host/specs/demo-api.ts";
import { ApiRegistry, type RegisteredApi, type UnusableApi } from "../host/specs/registry.ts";
import { loadSpecSource } from "../host/specs/source.ts";
import { addApiOptionFlags, applyApiFlags, type ApiFlags } from "./api-options.ts";
import { CliError, printJson, type CliIo } from "./io.ts";
import { plural } from "./ingest.ts";

interface DataDirOption {
  dataDir?: string;
}

interface AddOptions extends DataDirOption, ApiFlags {}

export function registerApiCommands(program: Command, io: CliIo): void {
  const api = program.command("api").description("Register, list and remove the APIs programs can call.");

  addApiOptionFlags(
    api
      .command("add")
      .description("Register an API from its OpenAPI spec under a name programs use as apis.<name>.")
      .argument("<name>", "a JavaScript identifier, e.g. github or petstore")
      .argument("<spec>", "spec file or http(s) URL; - reads the spec from stdin"),
    "add",
  )
    .option("--data-dir <DIR>", "the workbench data directory")
    .addHelpText("after", "\nExample: workbench api add github ./api.github.com.json --auth-scheme token --credential vault:github/token --response-headers x-ratelimit-remaining")
    .action(async (name: string, spec: string, options: AddOptions) => {
      const nameProblem = apiNameProblem(name);
      if (nameProblem) throw new CliError(nameProblem);
      const registry = openRegistry(io, options);
      const loaded = spec === "-" ? await loadSpecSource({ text: await io.readStdin(), filename: "stdin" }) : await loadSpecSource(spec, { fetch: globalThis.fetch });
      if (!loaded.ok) throw new CliError(`${spec}: ${loaded.error.message}`);
      const { result } = registry.store.ingest(loaded.text);
      if (!result.ok) {
        const where = result.error.pointer ? ` at ${result.error.pointer}` : "";
        throw new CliError(`${spec} is not a usable spec: ${result.error.message}${where} (workbench ingest ${spec} shows the details)`);
      }
      const config = applyApiFlags(io, result.artifact, {}, options);
      const added = registry.register(name, result.artifact, config, loaded.source);
      if (!added.ok) throw new CliError(added.error.message);
      io.stdout(describeAdded(added.value, spec));
    });

  addApiOptionFlags(
    api
      .command("set")
      .description("Change a registered API's options; the ones not given stay as they are.")
      .argument("<name>", "the API's name"),
    "set",
  )
    .option("--data-dir <DIR>", "the workbench data directory")
    .addHelpText("after", '\nExamples:\n  workbench api set github --timeout-ms 10000 --validate warn --idempotency-header Idempotency-Key\n  workbench api set internal --context \'{"org": "acme"}\' --passthrough-headers x-request-id\n  workbench api set billing --idempotency-header ""     (clears it)')
    .action((name: string, options: DataDirOption & ApiFlags) => {
      const registry = openRegistry(io, options);
      const loaded = registry.get(name);
      if (!loaded.ok) throw new CliError(loaded.error.message);
      const config = applyApiFlags(io, loaded.value.artifact, loaded.value.entry.config, options);
      const updated = registry.update(name, { config });
      if (!updated.ok) throw new CliError(updated.error.message);
      io.stdout(`updated ${name}\n${describeSettings(updated.value)}`);
    });

  api
    .command("show")
    .description("One API's options.")
    .argument("<name>", "the API's name")
    .option("--json", "print JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action((name: string, options: DataDirOption & { json?: boolean }) => {
      const entry = openRegistry(io, options).entry(name);
      if (!entry) throw new CliError(`no API named "${name}" is registered`);
      if (options.json) printJson(io, entry);
      else io.stdout(`${entry.name}: ${entry.title}${entry.version ? ` ${entry.version}` : ""}, ${plural(entry.operationCount, "operation")}\n${describeSettings(entry)}`);
    });

  api
    .command("list")
    .description("List the registered APIs.")
    .option("--json", "print JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action((options: DataDirOption & { json?: boolean }) => {
      const registry = openRegistry(io, options);
      const apis = registry.list();
      if (options.json) printJson(io, apis);
      else io.stdout(formatList(apis, registry.unusable()));
    });

  api
    .command("remove")
    .description("Unregister an API, or an entry of registry.json that cannot be used (its parsed spec stays cached; vault items are untouched).")
    .argument("<name>", "the API's name")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action((name: string, options: DataDirOption) => {
      const removed = openRegistry(io, options).remove(name);
      if (!removed.ok) throw new CliError(removed.error.message);
      io.stdout(`removed ${name}\n`);
    });
}

function openRegistry(io: CliIo, options: DataDirOption): ApiRegistry {
  const registry = ApiRegistry.open(ensureDataDir(resolveDataDir({ flag: options.dataDir, env: io.env })));
  for (const notice of registry.notices()) io.stderr(`warning: ${notice}\n`);
  const demo = ensureDemoApi(registry);
  if (!demo.ok) io.stderr(`warning: could not add the demo API: ${demo.error.message}\n`);
  return registry;
}

function describeAdded(api: RegisteredApi, spec: string): string {
  const lines = [`added ${api.name}: ${api.title}${api.version ? ` ${api.version}` : ""}, ${plural(api.operationCount, "operation")}`];
  lines.push(`  calls go to ${api.baseUrl ?? "the demo server (started on use)"}`);
  const auth = api.config.auth;
  if (auth) {
    lines.push(`  auth: ${auth.scheme ?? "inline scheme"}${auth.credential ? ` with ${auth.credential}` : " (no credential yet)"}`);
    const item = auth.credential ? VAULT_REF_PATTERN.exec(auth.credential)?.[1] : undefined;
    if (item) lines.push(`  the vault item must allow this API: workbench vault allow-apis ${item} ${api.name}`);
  }
  if (api.warningCount > 0) lines.push(`  ${plural(api.warningCount, "repair warning")}: workbench ingest ${spec} lists them`);
  return `${lines.join("\n")}\n`;
}

/** Every option, one per line, as `api set` takes it. */
function describeSettings(api: RegisteredApi): string {
  const c = api.config;
  const auth = c.auth;
  const scheme = auth?.scheme ?? (auth?.inline ? `inline ${describeInline(auth.inline)}` : undefined);
  const rows: [string, string][] = [
    ["base URL", api.baseUrl ?? "the demo server (started on use)"],
    ["auth", auth ? `${scheme ?? "no scheme"}${auth.credential ? ` with ${auth.credential}` : " (no credential)"}` : "none"],
    ...(auth?.username ? [["client id", auth.username] as [string, string]] : []),
    ...(auth?.scopes?.length ? [["scopes", auth.scopes.join(", ")] as [string, string]] : []),
    ["validate", c.validate],
    ["timeout", `${c.timeoutMs.toLocaleString("en")} ms`],
    ["max response", `${c.maxResponseBytes.toLocaleString("en")} bytes`],
    ["idempotency header", c.autoIdempotencyHeader ?? "none"],
    ["response headers", c.responseHeaders.length ? c.responseHeaders.join(", ") : "content-type only"],
    ["passthrough headers", c.passthroughHeaders.length ? c.passthroughHeaders.join(", ") : "none"],
    ["context", c.sandboxGlobals && Object.keys(c.sandboxGlobals).length ? JSON.stringify(c.sandboxGlobals) : "none"],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${`${k}:`.padEnd(width + 1)} ${v}\n`).join("");
}

function describeInline(inline: NonNullable<NonNullable<RegisteredApi["config"]["auth"]>["inline"]>): string {
  if (inline.type === "http") return inline.scheme;
  if (inline.type === "apiKey") return `${inline.in}:${inline.name}`;
  const flows = inline.flows;
  const kinds = Object.entries(flows).filter(([, flow]) => flow).map(([name]) => name);
  return `oauth2 (${kinds.join(", ")})${flows.clientCredentials ? `: ${flows.clientCredentials.tokenUrl}` : ""}`;
}

function formatList(apis: RegisteredApi[], unusable: UnusableApi[]): string {
  const broken = unusable.map((u) => `${u.name}  UNUSABLE: ${u.reason} (fix: workbench api set ${u.name} ..., or: workbench api remove ${u.name})\n`).join("");
  if (apis.length === 0) return `no APIs registered; add one with: workbench api add <name> <file|url>\n${broken}`;
  const rows = apis.map((a) => [
    a.name,
    `${a.title}${a.version ? ` ${a.version}` : ""}`,
    a.operationCount.toLocaleString("en"),
    a.baseUrl ?? "demo server (started on use)",
    a.config.auth ? `${a.config.auth.scheme ?? "inline"}${a.config.auth.credential ? ` ${a.config.auth.credential}` : ""}` : "none",
  ]);
  const header = ["NAME", "TITLE", "OPERATIONS", "BASE URL", "AUTH"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return `${[format(header), ...rows.map(format)].join("\n")}\n${broken}`;
}
