import type { Command } from "commander";
import type { CliIo } from "./io.ts";

// Placeholder: the vault commands land with their issue.
export function registerVaultCommands(_program: Command, _io: CliIo): void {}
