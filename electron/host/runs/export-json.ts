/**
 * A run and its calls as one JSON document (`workbench runs export <id>`, the
 * UI's "Export"). Everything in it is already redacted by the time it was
 * stored; the format tag lets a later import tell what it is reading.
 */
import type { CallRecord, CodeRun } from "../../../shared/runs.ts";
import type { CodeRunStore } from "./store.ts";

export const RUN_EXPORT_FORMAT = "codemode-workbench/run";

export interface RunExport {
  format: typeof RUN_EXPORT_FORMAT;
  formatVersion: 1;
  run: CodeRun;
  /** In the order the program started them. */
  calls: CallRecord[];
}

export function exportRunJson(store: CodeRunStore, id: string): RunExport | undefined {
  const run = store.getRun(id);
  if (!run) return undefined;
  return { format: RUN_EXPORT_FORMAT, formatVersion: 1, run, calls: store.getCalls(id) };
}
