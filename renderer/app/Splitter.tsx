/** A drag handle between two panes; arrow keys resize it too. */
import { useRef } from "react";
import "./Splitter.css";

export function Splitter({
  orientation,
  value,
  min,
  max,
  onChange,
  label,
  invert = false,
}: {
  orientation: "vertical" | "horizontal";
  value: number;
  min: number;
  max: number;
  onChange: (value: number) => void;
  label: string;
  /** True when dragging towards the end makes the pane smaller (a bottom panel). */
  invert?: boolean;
}) {
  const start = useRef<{ pos: number; value: number } | null>(null);
  const clamp = (v: number) => Math.max(min, Math.min(max, Math.round(v)));
  return (
    <div
      className={`splitter splitter-${orientation}`}
      role="separator"
      aria-orientation={orientation}
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onPointerDown={(e) => {
        (e.target as HTMLElement).setPointerCapture(e.pointerId);
        start.current = { pos: orientation === "vertical" ? e.clientX : e.clientY, value };
      }}
      onPointerMove={(e) => {
        if (!start.current) return;
        const delta = (orientation === "vertical" ? e.clientX : e.clientY) - start.current.pos;
        onChange(clamp(start.current.value + (invert ? -delta : delta)));
      }}
      onPointerUp={() => (start.current = null)}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 50 : 16;
        const grow = orientation === "vertical" ? "ArrowRight" : "ArrowDown";
        const shrink = orientation === "vertical" ? "ArrowLeft" : "ArrowUp";
        if (e.key === grow) onChange(clamp(value + (invert ? -step : step)));
        else if (e.key === shrink) onChange(clamp(value + (invert ? step : -step)));
        else return;
        e.preventDefault();
      }}
    />
  );
}
