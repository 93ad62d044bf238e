/** What `workbench doctor` reports: one finding per thing it looked at, and whether anything is wrong. */

/** `problem`: something is wrong now; `note`: worth knowing, nothing to fix (a copy kept by an earlier recovery, a stale lockfile). */
export type Severity = "ok" | "note" | "problem";

export interface Finding {
  /** What was checked, relative to the data directory: `registry.json`, `artifacts/<hash>.json`, `.` for the directory itself. */
  path: string;
  severity: Severity;
  /** What was found, in a sentence. */
  message: string;
  /** What to do about it, when something can be done. */
  fix?: string;
}

export interface DoctorReport {
  dataDir: string;
  /** False when any finding is a problem. */
  healthy: boolean;
  findings: Finding[];
}

export const ok = (path: string, message: string): Finding => ({ path, severity: "ok", message });
export const note = (path: string, message: string, fix?: string): Finding => ({ path, severity: "note", message, ...(fix ? { fix } : {}) });
export const problem = (path: string, message: string, fix?: string): Finding => ({ path, severity: "problem", message, ...(fix ? { fix } : {}) });

export function report(dataDir: string, findings: Finding[]): DoctorReport {
  return { dataDir, healthy: findings.every((f) => f.severity !== "problem"), findings };
}
