/**
 * `workbench vault ...`: set, list and remove secrets from a terminal.
 *
 * A value never comes from the command line itself: argv stays in shell
 * history and is visible to every user through `ps`. It comes from stdin or
 * from a named environment variable, and nothing this command prints contains
 * it, not even the refusal of a stray argument that might be the value.
 */
import type { Command } from "commander";
import { resolveDataDir } from "../host/data-dir.ts";
import { parseVaultLabel, vaultLabel } from "../host/vault/names.ts";
import { Vault, type VaultItemInfo, type VaultUpdate } from "../host/vault/vault.ts";
import { CliError, printJson, type CliIo } from "./io.ts";

interface DataDirOption {
  dataDir?: string;
}

export function registerVaultCommands(program: Command, io: CliIo): void {
  const vault = program
    .command("vault")
    .description("Secrets that programs use by reference (vault.<item>.<field>), encrypted at rest, each item sent only to the APIs it allows.");

  vault
    .command("set")
    .description("Store a secret, read from stdin or an environment variable (never from the command line).")
    .argument("<item/field>", "where to store it, e.g. github/token")
    .option("--stdin", "read the value from stdin (one trailing newline is dropped)")
    .option("--env <VAR>", "read the value from the environment variable VAR")
    .option("--allow-api <NAME>", "an API the item may be sent to (repeatable; adds to those already allowed)", collect, [])
    .option("--data-dir <DIR>", "the workbench data directory")
    // Parsed by hand so that a stray value is refused without being echoed.
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(async (target: string, options: DataDirOption & { stdin?: boolean; env?: string; allowApi: string[] }, command: Command) => {
      if (command.args.length > 1) {
        throw new CliError("vault set takes the value from --stdin or --env VAR, never as an argument (arguments stay in shell history and show in ps); unexpected extra arguments were given and ignored, nothing was stored");
      }
      const { item, field } = parseTarget(target, true);
      const value = await readValue(io, options);
      const opened = openVault(io, options);
      check(opened.set(item, field!, value, { allowApis: options.allowApi }));
      const apis = opened.allowedApis(item) ?? [];
      io.stdout(`stored ${vaultLabel(item, field!)}; ${describeApis(item, apis)}\n`);
      warnUnreadable(io, opened.list());
    });

  vault
    .command("list")
    .description("List items, their fields and the APIs each may be sent to (never values).")
    .option("--json", "print JSON")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action((options: DataDirOption & { json?: boolean }) => {
      const opened = openVault(io, options, !options.json);
      const items = opened.list();
      if (options.json) printJson(io, { items, notices: opened.notices() });
      else io.stdout(formatItems(items, opened.dataDir));
    });

  vault
    .command("remove")
    .description("Remove one field (item/field) or a whole item.")
    .argument("<item[/field]>", "what to remove, e.g. github/token or github")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action((target: string, options: DataDirOption) => {
      const { item, field } = parseTarget(target, false);
      check(openVault(io, options).remove(item, field));
      io.stdout(`removed ${field === undefined ? `item ${item}` : vaultLabel(item, field)}\n`);
    });

  vault
    .command("allow-apis")
    .description("Replace the APIs an item may be sent to (give none to allow no API).")
    .argument("<item>", "the vault item, e.g. github")
    .argument("[apis...]", "API names")
    .option("--data-dir <DIR>", "the workbench data directory")
    .action((item: string, apis: string[], options: DataDirOption) => {
      const opened = openVault(io, options);
      check(opened.setAllowedApis(item, apis));
      io.stdout(`${describeApis(item, opened.allowedApis(item) ?? [])}\n`);
    });
}

function openVault(io: CliIo, options: DataDirOption, printNotices = true): Vault {
  const dataDir = resolveDataDir({ flag: options.dataDir, env: io.env });
  const opened = Vault.open(dataDir, { env: io.env });
  if (!opened.ok) throw new CliError(opened.message);
  if (printNotices) for (const notice of opened.vault.notices()) io.stderr(`warning: ${notice}\n`);
  return opened.vault;
}

function parseTarget(text: string, needField: boolean): { item: string; field?: string } {
  const parsed = parseVaultLabel(text);
  if (!parsed || (needField && parsed.field === undefined)) {
    throw new CliError(`expected ${needField ? "item/field" : "item or item/field"} (e.g. github/token), got ${JSON.stringify(text)}`);
  }
  return parsed;
}

async function readValue(io: CliIo, options: { stdin?: boolean; env?: string }): Promise<string> {
  if (Boolean(options.stdin) === (options.env !== undefined)) throw new CliError("give the value with exactly one of --stdin or --env VAR");
  if (options.env !== undefined) {
    const value = io.env[options.env];
    if (value === undefined) throw new CliError(`the environment variable ${options.env} is not set`);
    if (value === "") throw new CliError(`the environment variable ${options.env} is empty`);
    return value;
  }
  // `echo "$TOKEN" | workbench vault set ...` appends a newline that is not part of the secret.
  const value = (await io.readStdin()).replace(/\r?\n$/, "");
  if (value === "") throw new CliError("stdin was empty; nothing was stored");
  return value;
}

/** After a set, say so if other values were sealed with a key this process does not have. */
function warnUnreadable(io: CliIo, items: VaultItemInfo[]): void {
  const unreadable = items.flatMap((item) => item.fields.filter((field) => field.problem).map((field) => vaultLabel(item.name, field.name)));
  if (unreadable.length) io.stderr(`warning: ${unreadable.length} other value(s) cannot be decrypted here and were kept as they are: ${unreadable.join(", ")} (see workbench vault list)\n`);
}

function check(update: VaultUpdate): void {
  if (!update.ok) throw new CliError(update.message);
}

function describeApis(item: string, apis: string[]): string {
  return apis.length ? `${item} may be sent to: ${apis.join(", ")}` : `${item} may be sent to no API yet (add one with --allow-api NAME)`;
}

function formatItems(items: VaultItemInfo[], dataDir: string): string {
  if (items.length === 0) return `the vault in ${dataDir} is empty\n`;
  const lines: string[] = [];
  for (const item of items) {
    lines.push(`${item.name}  (${item.allowApis.length ? `may be sent to: ${item.allowApis.join(", ")}` : "may be sent to no API"})`);
    for (const field of item.fields) lines.push(`  ${field.name}${field.problem ? `  ! ${field.problem}` : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
