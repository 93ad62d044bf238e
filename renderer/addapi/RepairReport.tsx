/** What ingest repaired or dropped, grouped by kind: nothing goes missing without a word. */
import { useState } from "react";
import type { RepairWarning } from "../../shared/artifact.ts";
import "./RepairReport.css";

export function RepairReport({ warnings }: { warnings: RepairWarning[] }) {
  const [shown, setShown] = useState(40);
  if (!warnings.length) {
    return (
      <p className="repair-clean" data-testid="repair-report">
        No repairs needed: every operation and schema was read as written.
      </p>
    );
  }
  const counts = new Map<string, number>();
  for (const w of warnings) counts.set(w.code, (counts.get(w.code) ?? 0) + 1);
  return (
    <section className="repair" data-testid="repair-report" aria-label="Repair report">
      <h3 className="section-title">
        Repair report: {warnings.length} note{warnings.length === 1 ? "" : "s"}
      </h3>
      <div className="repair-counts">
        {[...counts].map(([code, n]) => (
          <span key={code} className="pill pill-warn">
            {code} × {n}
          </span>
        ))}
      </div>
      <ul className="repair-list">
        {warnings.slice(0, shown).map((w, i) => (
          <li key={i}>
            <code className="repair-code">{w.code}</code>
            <span className="repair-message">{w.message}</span>
            {w.pointer && <code className="repair-pointer muted">{w.pointer}</code>}
          </li>
        ))}
      </ul>
      {warnings.length > shown && (
        <button type="button" className="btn btn-small" onClick={() => setShown(shown + 200)}>
          Show more ({warnings.length - shown} left)
        </button>
      )}
    </section>
  );
}
