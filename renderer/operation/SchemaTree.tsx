/**
 * A schema as a collapsible tree. Component refs are fetched when their node
 * opens; a ref already open further up the same branch is a cycle and shows
 * as such instead of expanding forever.
 */
import { useState } from "react";
import type { JsonValue } from "../../shared/json.ts";
import { Markdown } from "../common/Markdown.tsx";
import { useSchema } from "./schema-cache.ts";
import { constraints, isSchemaObject, refNameOf, typeSummary, type SchemaObject } from "./schema-summary.ts";
import "./SchemaTree.css";

export function SchemaTree({ api, schema, openDepth = 1 }: { api: string; schema: JsonValue | undefined; openDepth?: number }) {
  if (schema === undefined) return <p className="muted">No schema.</p>;
  return (
    <div className="schema-tree">
      <SchemaNode api={api} schema={schema} ancestors={[]} depth={0} openDepth={openDepth} />
    </div>
  );
}

interface NodeProps {
  api: string;
  schema: JsonValue;
  label?: string;
  required?: boolean;
  ancestors: string[];
  depth: number;
  openDepth: number;
}

function SchemaNode({ api, schema, label, required, ancestors, depth, openDepth }: NodeProps) {
  const ref = refNameOf(schema);
  const circular = ref !== undefined && ancestors.includes(ref);
  const [open, setOpen] = useState(depth < openDepth && !circular);
  const resolved = useSchema(api, open && ref && !circular ? ref : undefined);
  const own = isSchemaObject(schema) ? schema : {};
  const target: SchemaObject | undefined = ref ? (resolved.schema ? { ...resolved.schema, ...withoutRef(own) } : undefined) : own;
  const chain = ref ? [...ancestors, ref] : ancestors;
  const children = target ? childNodes(target) : [];
  const expandable = ref ? !circular : children.length > 0;
  const description = (typeof own.description === "string" && own.description) || (target && typeof target.description === "string" ? target.description : "");
  const shown = target ?? own;
  const facts = constraints(shown);
  const enumValues = Array.isArray(shown.enum) ? shown.enum : undefined;

  return (
    <div className="schema-node">
      <div className="schema-row">
        {expandable ? (
          <button className="schema-toggle" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={`${open ? "Collapse" : "Expand"} ${label ?? ref ?? "schema"}`}>
            <span aria-hidden>{open ? "▾" : "▸"}</span>
          </button>
        ) : (
          <span className="schema-toggle-space" />
        )}
        {label !== undefined && <span className="schema-name">{label}</span>}
        <span className={`schema-type ${ref ? "schema-ref" : ""}`}>{typeSummary(ref ? schema : shown)}</span>
        {circular && (
          <span className="pill pill-warn" title={`${ref} contains itself: this branch repeats from "${ref}" above`}>
            ↻ circular
          </span>
        )}
        {required && <span className="schema-required">required</span>}
        {shown.deprecated === true && <span className="pill pill-warn">deprecated</span>}
        {facts.map((f) => (
          <span key={f} className="schema-fact">
            {f}
          </span>
        ))}
      </div>
      {(description || enumValues) && (
        <div className="schema-detail">
          {description && <Markdown text={description.length > 600 ? `${description.slice(0, 600)}…` : description} className="schema-desc" />}
          {enumValues && (
            <div className="schema-enum">
              {enumValues.slice(0, 30).map((v, i) => (
                <code key={i}>{JSON.stringify(v)}</code>
              ))}
              {enumValues.length > 30 && <span className="muted">+{enumValues.length - 30} more</span>}
            </div>
          )}
        </div>
      )}
      {open && (
        <div className="schema-children">
          {ref && !target && !resolved.error && <div className="muted schema-loading">Loading {ref}…</div>}
          {resolved.error && <div className="field-error">Could not load {ref}: {resolved.error}</div>}
          {ref && resolved.schema === null && <div className="muted">{ref} is not in this spec.</div>}
          {children.map((child) =>
            child.kind === "heading" ? (
              <div key={child.key} className="schema-heading">
                {child.text}
              </div>
            ) : (
              <SchemaNode key={child.key} api={api} schema={child.schema} label={child.label} required={child.required} ancestors={chain} depth={depth + 1} openDepth={openDepth} />
            ),
          )}
        </div>
      )}
    </div>
  );
}

type Child = { kind: "node"; key: string; label: string; schema: JsonValue; required?: boolean } | { kind: "heading"; key: string; text: string };

function childNodes(schema: SchemaObject): Child[] {
  const out: Child[] = [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  for (const [key, word] of [["allOf", "all of"], ["oneOf", "one of"], ["anyOf", "any of"]] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length) {
      out.push({ kind: "heading", key: `h-${key}`, text: word });
      list.forEach((s, i) => out.push({ kind: "node", key: `${key}-${i}`, label: `${i + 1}.`, schema: s }));
    }
  }
  if (isSchemaObject(schema.properties)) {
    for (const [name, prop] of Object.entries(schema.properties)) out.push({ kind: "node", key: `p-${name}`, label: name, schema: prop, required: required.has(name) });
  }
  if (schema.items !== undefined && schema.items !== true) {
    const items = schema.items;
    if (Array.isArray(items)) items.forEach((s, i) => out.push({ kind: "node", key: `i-${i}`, label: `[${i}]`, schema: s }));
    else out.push({ kind: "node", key: "items", label: "[items]", schema: items });
  }
  if (isSchemaObject(schema.additionalProperties)) out.push({ kind: "node", key: "additional", label: "[key: string]", schema: schema.additionalProperties });
  return out;
}

function withoutRef(schema: SchemaObject): SchemaObject {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}
