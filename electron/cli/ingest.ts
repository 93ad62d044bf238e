/**
 * `workbench ingest <file|url>...`: what the workbench understood of each spec
 * (title, version, spec version, operation count) and every repair it made,
 * each with its JSON pointer. Exit 0 only when every spec was usable.
 * Parsed artifacts are cached in the data directory, so a later `api add` of
 * the same spec does not parse it again.
 */
import type { Command } from "commander";
import type { IngestResult, RepairWarning } from "../../shared/artifact.ts";
import { ensureDataDir, resolveDataDir } from "../host/data-dir.ts";
import { ArtifactStore } from "../host/specs/artifact-store.ts";
import { loadSpecSource } from "../host/specs/source.ts";
import type { CliIo } from "./io.ts";

export interface IngestLine {
  source: string;
  ok: boolean;
  title: string | null;
  version: string | null;
  /** The version the document declared ("2.0" for Swagger). */
  openapi: string | null;
  operations: number | null;
  warnings: RepairWarning[];
  error?: { code: string; pointer: string; message: string };
}

export function registerIngestCommands(program: Command, io: CliIo): void {
  program
    .command("ingest")
    .description("Read OpenAPI specs (JSON or YAML; OpenAPI 3.0, 3.1, Swagger 2.0) and report what was understood and every repair made.")
    .argument("<specs...>", "spec files or http(s) URLs; - reads one spec from stdin")
    .option("--json", "print one JSON object per spec, one per line")
    .option("--data-dir <DIR>", "the workbench data directory (parsed specs are cached there)")
    .addHelpText("after", "\nExit status: 0 when every spec was usable, 1 otherwise.\nExample: workbench ingest ./openapi.yaml https://petstore3.swagger.io/api/v3/openapi.json")
    .action(async (sources: string[], options: { json?: boolean; dataDir?: string }) => {
      const store = new ArtifactStore(ensureDataDir(resolveDataDir({ flag: options.dataDir, env: io.env })));
      for (const source of sources) {
        const line = await ingestOne(io, store, source);
        if (!line.ok) io.exit(1);
        if (options.json) io.stdout(`${JSON.stringify(line)}\n`);
        else printLine(io, line);
      }
    });
}

async function ingestOne(io: CliIo, store: ArtifactStore, source: string): Promise<IngestLine> {
  const loaded = source === "-" ? await loadSpecSource({ text: await io.readStdin(), filename: "stdin" }) : await loadSpecSource(source, { fetch: globalThis.fetch });
  if (!loaded.ok) return failed(source, { code: loaded.error.code, pointer: "", message: loaded.error.message }, []);
  const { result } = store.ingest(loaded.text);
  return lineFor(source, result);
}

export function lineFor(source: string, result: IngestResult): IngestLine {
  if (!result.ok) return failed(source, result.error, result.warnings);
  const a = result.artifact;
  return { source, ok: true, title: a.info.title, version: a.info.version, openapi: a.sourceVersion, operations: a.operations.length, warnings: a.warnings };
}

function failed(source: string, error: IngestLine["error"] & object, warnings: RepairWarning[]): IngestLine {
  return { source, ok: false, title: null, version: null, openapi: null, operations: null, warnings, error };
}

function printLine(io: CliIo, line: IngestLine): void {
  if (!line.ok) {
    const where = line.error!.pointer ? ` at ${line.error!.pointer}` : "";
    io.stderr(`error: ${line.source}: ${line.error!.message}${where} [${line.error!.code}]\n`);
    if (line.warnings.length > 0) io.stderr(formatWarnings(line.warnings));
    return;
  }
  const version = line.openapi === "2.0" ? "Swagger 2.0, upgraded to OpenAPI 3.0" : `OpenAPI ${line.openapi}`;
  const summary = `${line.title}${line.version ? ` ${line.version}` : ""} (${version}), ${plural(line.operations!, "operation")}`;
  const repairs = line.warnings.length === 0 ? "no repairs needed" : plural(line.warnings.length, "warning");
  io.stdout(`${line.source}: ${summary}, ${repairs}\n${formatWarnings(line.warnings)}`);
}

/** Grouped by kind with a count, each warning on its own line with its pointer. */
export function formatWarnings(warnings: RepairWarning[]): string {
  const groups = new Map<string, RepairWarning[]>();
  for (const w of warnings) groups.set(w.code, [...(groups.get(w.code) ?? []), w]);
  let out = "";
  for (const [code, list] of groups) {
    out += `  ${code} (${list.length.toLocaleString("en")}):\n`;
    for (const w of list) out += `    ${w.pointer === "" ? "(document)" : w.pointer}: ${w.message}\n`;
  }
  return out;
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
}
