/**
 * `workbench api add|list|remove`: the registered APIs of a data directory.
 * Each command opens the registry the app uses, so a data directory's first
 * command also registers the demo API, as the app's first start does.
 */
import type { Command } from "commander";
import { apiNameProblem, VAULT_REF_PATTERN, type ApiConfigInput } from "../../shared/api-config.ts";
import type { Artifact } from "../../shared/artifact.ts";
import { ensureDataDir, resolveDataDir } from "../host/data-dir.ts";
import { ensureDemoApi } from "../host/specs/demo-api.ts";
import { ApiRegistry, type RegisteredApi, type UnusableApi } from "../host/specs/registry.ts";
import { loadSpecSource } from "../host/specs/source.ts";
import { CliError, printJson, type CliIo } from "./io.ts";
import { plural } from "./ingest.ts";

interface DataDirOption {
  dataDir?: string;
}

interface AddOptions extends DataDirOption {
  baseUrl?: string;
  authScheme?: string;
  credential?: string;
}

export function registerApiCommands(program: Command, io: CliIo): void {
  const api = program.command("api").description("Register, list and remove the APIs programs can call.");

  api
    .command("add")
    .description("Register an API from its OpenAPI spec under a name programs use as apis.<name>.")
    .argument("<name>", "a JavaScript identifier, e.g. github or petstore")
    .argument("<spec>", "spec file or http(s) URL; - reads the spec from stdin")
    .option("--base-url <URL>", "where calls go (default: the spec's first server)")
    .option("--auth-scheme <NAME>", "the spec's security scheme to authenticate with")
    .option("--credential <vault:item/field>", "the vault reference holding the secret, e.g. vault:github/token")
    .option("--data-dir <DIR>", "the workbench data directory")
    .addHelpText("after", "\nExample: workbench api add github ./api.github.com.json --auth-scheme token --credential vault:github/token")
    .action(async (name: string, spec: string, options: AddOptions) => {
      const nameProblem = apiNameProblem(name);
      if (nameProblem) throw new CliError(nameProblem);
      if (options.credential !== undefined && !VAULT_REF_PATTERN.test(options.credential)) {
        throw new CliError(`--credential must be a vault reference like vault:github/token, not ${JSON.stringify(options.credential)} (store the secret with: workbench vault set <item>/<field> --stdin)`);
      }
      const registry = openRegistry(io, options);
      const loaded = spec === "-" ? await loadSpecSource({ text: await io.readStdin(), filename: "stdin" }) : await loadSpecSource(spec, { fetch: globalThis.fetch });
      if (!loaded.ok) throw new CliError(`${spec}: ${loaded.error.message}`);
      const { result } = registry.store.ingest(loaded.text);
      if (!result.ok) {
        const where = result.error.pointer ? ` at ${result.error.pointer}` : "";
        throw new CliError(`${spec} is not a usable spec: ${result.error.message}${where} (workbench ingest ${spec} shows the details)`);
      }
      const config = configFrom(io, result.artifact, options);
      const added = registry.register(name, result.artifact, config, loaded.source);
      if (!added.ok) throw new CliError(added.error.message);
      io.stdout(describeAdded(added.value, spec));
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

/** The flags as an API config; a credential without a scheme takes the spec's only scheme, if it has exactly one. */
function configFrom(io: CliIo, artifact: Artifact, options: AddOptions): ApiConfigInput {
  const config: ApiConfigInput = {};
  if (options.baseUrl !== undefined) config.baseUrl = options.baseUrl;
  let scheme = options.authScheme;
  if (options.credential !== undefined && scheme === undefined) {
    const schemes = Object.keys(artifact.securitySchemes);
    if (schemes.length === 1) {
      scheme = schemes[0]!;
      io.stderr(`note: using the spec's only security scheme, ${scheme}\n`);
    } else if (schemes.length === 0) {
      throw new CliError("the spec declares no security schemes, so the CLI cannot tell how to send the credential; add the API without --credential and set an inline scheme in the app's API settings");
    } else {
      throw new CliError(`the spec has several security schemes; pick one with --auth-scheme (${schemes.join(", ")})`);
    }
  }
  if (scheme !== undefined || options.credential !== undefined) {
    config.auth = { ...(scheme === undefined ? {} : { scheme }), ...(options.credential === undefined ? {} : { credential: options.credential }) };
  }
  return config;
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
