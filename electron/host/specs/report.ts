/**
 * The repair report: every upgrade, derived id, dropped field and unresolved
 * `$ref`, each with the JSON pointer of the place it concerns. Capped, so a
 * spec with a million broken fields yields a readable report, not a million lines.
 */
import type { RepairWarning } from "../../../shared/artifact.ts";

/** What stops ingest: which stage refused the document, where, and why. */
export interface IngestError {
  code: string;
  pointer: string;
  message: string;
}

export const MAX_WARNINGS = 5_000;

export class RepairReport {
  readonly warnings: RepairWarning[] = [];
  private omitted = 0;
  private readonly limit: number;

  constructor(limit = MAX_WARNINGS) {
    this.limit = limit;
  }

  add(code: string, pointer: string, message: string): void {
    if (this.warnings.length < this.limit) this.warnings.push({ code, pointer, message });
    else this.omitted += 1;
  }

  /** A field that was there but unusable, so left out. */
  dropped(pointer: string, what: string, why: string): void {
    this.add("dropped-field", pointer, `${what} dropped: ${why}`);
  }

  /** The warnings, with a closing line when some were left out. */
  finish(mapPointer: (pointer: string) => string = (p) => p): RepairWarning[] {
    const out = this.warnings.map((w) => ({ ...w, pointer: mapPointer(w.pointer) }));
    if (this.omitted > 0) {
      out.push({ code: "too-many-warnings", pointer: "", message: `${this.omitted} more warnings were left out of this report (it keeps the first ${this.limit})` });
    }
    return out;
  }
}
