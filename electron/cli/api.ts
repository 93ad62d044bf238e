import type { Command } from "commander";
import type { CliIo } from "./io.ts";

// Placeholder: the api commands land with their issue.
export function registerApiCommands(_program: Command, _io: CliIo): void {}
