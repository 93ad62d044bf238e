/**
 * A collapsible JSON view. Children render only when their node is open, and
 * long arrays and objects show a page at a time, so a 10 MB result stays
 * responsive. Redaction markers (⟦hidden:…⟧, ⟦vault:…⟧) stand out.
 */
import { useState } from "react";
import type { JsonValue } from "../../shared/json.ts";
import { CopyButton } from "./CopyButton.tsx";
import "./JsonTree.css";

const PAGE = 100;
const MARKER = /(⟦(?:hidden|vault):[^⟧]*⟧)/;

export function JsonTree({ value, openDepth = 2, copy = true, label }: { value: JsonValue | undefined; openDepth?: number; copy?: boolean; label?: string }) {
  if (value === undefined) return <span className="muted">(nothing)</span>;
  return (
    <div className="json-tree" aria-label={label ?? "JSON value"} role="group">
      {copy && (
        <div className="json-copy">
          <CopyButton text={() => JSON.stringify(value, null, 2)} label="Copy JSON" />
        </div>
      )}
      <JsonNode value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}

function JsonNode({ name, value, depth, openDepth, last = true }: { name?: string; value: JsonValue; depth: number; openDepth: number; last?: boolean }) {
  const isArray = Array.isArray(value);
  const isObject = value !== null && typeof value === "object";
  const entries = isObject ? (isArray ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)) : [];
  const [open, setOpen] = useState(depth < openDepth && entries.length <= 500);
  const [shown, setShown] = useState(PAGE);
  const key = name !== undefined && <span className="json-key">{isNaN(Number(name)) || !name ? JSON.stringify(name) : name}: </span>;
  const comma = last ? "" : ",";

  if (!isObject) {
    return (
      <div className="json-row">
        {key}
        <Scalar value={value} />
        {comma}
      </div>
    );
  }
  const [openBracket, closeBracket] = isArray ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    return (
      <div className="json-row">
        {key}
        <span className="json-punct">{openBracket + closeBracket}</span>
        {comma}
      </div>
    );
  }
  const summary = isArray ? `${entries.length} item${entries.length === 1 ? "" : "s"}` : `${entries.length} key${entries.length === 1 ? "" : "s"}`;
  return (
    <div className="json-branch">
      <button type="button" className="json-toggle" onClick={() => setOpen(!open)} aria-label={`${open ? "Collapse" : "Expand"} ${name ?? "value"}`}>
        <span className="json-caret" aria-hidden>{open ? "▾" : "▸"}</span>
        {key}
        <span className="json-punct">{openBracket}</span>
        {!open && (
          <>
            <span className="json-summary">{summary}</span>
            <span className="json-punct">{closeBracket}</span>
            {comma}
          </>
        )}
      </button>
      {open && (
        <>
          <div className="json-children">
            {entries.slice(0, shown).map(([k, v], i) => (
              <JsonNode key={k} name={isArray ? undefined : k} value={v} depth={depth + 1} openDepth={openDepth} last={i === entries.length - 1} />
            ))}
            {entries.length > shown && (
              <button type="button" className="btn btn-small json-more" onClick={() => setShown(shown + PAGE * 5)}>
                Show more ({entries.length - shown} left)
              </button>
            )}
          </div>
          <div className="json-row">
            <span className="json-punct">{closeBracket}</span>
            {comma}
          </div>
        </>
      )}
    </div>
  );
}

function Scalar({ value }: { value: string | number | boolean | null }) {
  if (typeof value === "string") return <JsonString value={value} />;
  if (typeof value === "number") return <span className="json-number">{String(value)}</span>;
  return <span className="json-literal">{String(value)}</span>;
}

function JsonString({ value }: { value: string }) {
  const [full, setFull] = useState(false);
  const long = value.length > 400 && !full;
  const text = long ? value.slice(0, 400) : value;
  return (
    <span className="json-string">
      "<Marked text={text} />
      {long && (
        <button type="button" className="json-expand-str" onClick={() => setFull(true)}>
          … {value.length - 400} more characters
        </button>
      )}
      "
    </span>
  );
}

/** Text with redaction markers shown as chips. */
export function Marked({ text }: { text: string }) {
  if (!text.includes("⟦")) return <>{text}</>;
  return (
    <>
      {text.split(MARKER).map((part, i) =>
        i % 2 === 1 ? (
          <span key={i} className={part.startsWith("⟦hidden") ? "marker marker-hidden" : "marker marker-vault"} title={part.startsWith("⟦hidden") ? "A secret value, hidden by the host" : "A vault reference: the host substitutes the value when it sends"}>
            {part}
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}
