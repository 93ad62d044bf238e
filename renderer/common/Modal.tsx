/** A dialog: traps nothing fancy, but focuses itself, closes on Escape, and labels itself for screen readers. */
import { useEffect, useRef, type ReactNode } from "react";
import "./Modal.css";

export function Modal({ title, onClose, children, wide = false }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const previous = useRef<Element | null>(null);
  // Escape closes the dialog even when focus has fallen to the page (a button that just became disabled).
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !e.defaultPrevented) {
        e.preventDefault();
        close.current();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  useEffect(() => {
    previous.current = document.activeElement;
    const first = ref.current?.querySelector<HTMLElement>("[autofocus], input, select, textarea, button:not(.modal-close)");
    (first ?? ref.current)?.focus();
    return () => (previous.current as HTMLElement | null)?.focus?.();
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        className={`modal ${wide ? "modal-wide" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby="modal-title"
        tabIndex={-1}
      >
        <div className="modal-header">
          <h2 id="modal-title">{title}</h2>
          <button className="icon-btn modal-close" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        <div className="modal-body">{children}</div>
      </div>
    </div>
  );
}
