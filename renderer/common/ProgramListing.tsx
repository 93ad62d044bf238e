/** A program's text with line numbers, optionally marking lines (the call waiting for approval). */
import { useEffect, useRef } from "react";
import "./ProgramListing.css";

export function ProgramListing({ code, marked = [], label = "Program", maxHeight = 260 }: { code: string; marked?: number[]; label?: string; maxHeight?: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const lines = code.replace(/\n$/, "").split("\n");
  const first = marked[0];
  useEffect(() => {
    if (first === undefined || !ref.current) return;
    const row = ref.current.querySelector<HTMLElement>(`[data-line="${first}"]`);
    if (row) ref.current.scrollTop = Math.max(0, row.offsetTop - ref.current.clientHeight / 3);
  }, [first, code]);
  return (
    <div className="listing" ref={ref} style={{ maxHeight }} role="region" aria-label={label} tabIndex={0}>
      <pre>
        {lines.map((line, i) => {
          const n = i + 1;
          const hot = marked.includes(n);
          return (
            <div key={i} data-line={n} className={`listing-line ${hot ? "listing-hot" : ""}`}>
              <span className="listing-no" aria-hidden>
                {n}
              </span>
              <span className="listing-text">
                {line || " "}
                {hot && <span className="sr-only"> (waiting here)</span>}
              </span>
            </div>
          );
        })}
      </pre>
    </div>
  );
}
