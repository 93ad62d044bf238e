import type { Command } from "commander";
import type { CliIo } from "./io.ts";

// Placeholder: the run commands land with their issue.
export function registerRunCommands(_program: Command, _io: CliIo): void {}
