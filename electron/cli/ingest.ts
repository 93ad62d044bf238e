import type { Command } from "commander";
import type { CliIo } from "./io.ts";

// Placeholder: the ingest commands land with their issue.
export function registerIngestCommands(_program: Command, _io: CliIo): void {}
