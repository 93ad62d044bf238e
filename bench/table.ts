/** Shared shape and printing for `npm run bench`: every section returns rows, printed side by side. */
export interface BenchRow {
  /** What was measured. */
  name: string;
  /** The figure, in `unit`. */
  value: number;
  unit: string;
  /** The figure it is compared with (a baseline or another engine), if any. */
  baseline?: { name: string; value: number };
  /** The target, as text a person reads ("<= 5 ms p50"), and whether the figure meets it. */
  target?: string;
  ok?: boolean;
  note?: string;
}

export interface BenchSection {
  title: string;
  rows: BenchRow[];
}

export function formatSection(section: BenchSection): string {
  const header = ["measure", "value", "baseline", "ratio", "target", "ok"];
  const lines = section.rows.map((r) => [
    r.name,
    `${fmt(r.value)} ${r.unit}`.trim(),
    r.baseline ? `${`${fmt(r.baseline.value)} ${r.unit}`.trim()} (${r.baseline.name})` : "",
    r.baseline && r.baseline.value > 0 ? `${(r.value / r.baseline.value).toFixed(2)}x` : "",
    r.target ?? "",
    r.ok === undefined ? "" : r.ok ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const out = [`\n## ${section.title}\n`, row(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...lines.map(row)];
  const notes = section.rows.filter((r) => r.note).map((r) => `- ${r.name}: ${r.note}`);
  return [...out, ...(notes.length ? ["", ...notes] : [])].join("\n");
}

function fmt(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** Percentile of a sample (nearest rank). */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
