/**
 * Ingest: spec text in, artifact out, never a throw. The stages, each in its
 * own module: parse (JSON or YAML) → bounds (depth, size, alias cycles) →
 * upgrade (Swagger 2.0 to OpenAPI 3) → normalize (schemas, refs, operations).
 * Every repair along the way is a warning with a JSON pointer into the source.
 *
 * Total by construction: the stages are linear walks with explicit depth and
 * node budgets, refs are followed with seen-sets, and a final catch turns
 * anything unforeseen into a structured error.
 */
import { createHash } from "node:crypto";
import { ARTIFACT_FORMAT, type IngestResult } from "../../../shared/artifact.ts";
import { DEFAULT_BOUNDS, enforceBounds, type Bounds } from "./bounds.ts";
import { normalizeDocument } from "./normalize.ts";
import { parseSpecText } from "./parse.ts";
import { RepairReport, type IngestError } from "./report.ts";
import { SchemaBudgetExceeded } from "./schemas.ts";
import { swagger2Pointer, upgradeDocument } from "./upgrade.ts";

/** Bumped when ingest's output changes for the same input, so cached artifacts are rebuilt. */
export const INGEST_REVISION = 1;

export type IngestOptions = Partial<Bounds>;

export function specHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function ingest(text: string, opts: IngestOptions = {}): IngestResult {
  const bounds: Bounds = { ...DEFAULT_BOUNDS, ...opts };
  const report = new RepairReport();
  let mapPointer = (pointer: string) => pointer;
  const failure = (error: IngestError): IngestResult => ({ ok: false, error: { ...error, pointer: mapPointer(error.pointer) }, warnings: report.finish(mapPointer) });
  try {
    if (typeof text !== "string") return failure({ code: "not-text", pointer: "", message: `ingest needs the spec's text, not ${typeof text}` });
    const parsed = parseSpecText(text);
    if (!parsed.ok) return failure(parsed.error);
    for (const w of parsed.warnings) report.add(w.code, w.pointer, w.message);

    const tooBig = enforceBounds(parsed.document, bounds, parsed.format === "yaml", report);
    if (tooBig) return failure(tooBig);

    const upgraded = upgradeDocument(parsed.document, report);
    if (!upgraded.ok) return failure(upgraded.error);
    if (upgraded.sourceVersion === "2.0") mapPointer = swagger2Pointer;

    const parts = normalizeDocument(upgraded.document, report, bounds.maxNodes * 2);
    return {
      ok: true,
      artifact: {
        format: ARTIFACT_FORMAT,
        hash: specHash(text),
        sourceVersion: upgraded.sourceVersion,
        openapi: upgraded.openapi,
        schemaDialect: upgraded.schemaDialect,
        ...parts,
        warnings: report.finish(mapPointer),
      },
    };
  } catch (err) {
    return failure(unexpected(err));
  }
}

function unexpected(err: unknown): IngestError {
  if (err instanceof SchemaBudgetExceeded) {
    return { code: "too-large", pointer: "", message: "the spec's schemas refer into each other so much that copying them exceeds the size budget; refusing it" };
  }
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return { code: "too-deep", pointer: "", message: "the spec nests too deeply to read" };
  }
  // A bug of ours, not the spec's: say so plainly, without a stack trace.
  return { code: "internal-error", pointer: "", message: `ingest failed unexpectedly (${err instanceof Error ? err.message : String(err)}); please report this with the spec` };
}
