/** One operation, read like documentation: what it does, what it takes, what it returns, and a button to call it. */
import { useState } from "react";
import type { MediaType, Operation, Parameter, ResponseSpec } from "../../shared/artifact.ts";
import type { JsonValue } from "../../shared/json.ts";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { useChannel, useWorkbench } from "../app/workbench-context.tsx";
import { useToast } from "../app/toasts.tsx";
import { CopyButton } from "../common/CopyButton.tsx";
import { Markdown } from "../common/Markdown.tsx";
import { methodClass } from "../common/format.ts";
import { SchemaTree } from "./SchemaTree.tsx";
import { loadSchema, useSchemaCacheReset } from "./schema-cache.ts";
import { typeSummary } from "./schema-summary.ts";
import { buildCallSnippet } from "./snippet.ts";
import "./OperationView.css";

export function OperationView({ api, operationId }: { api: string; operationId: string }) {
  useSchemaCacheReset();
  const op = useChannel("apis.operation", { api, id: operationId }, ["apis.changed"]);
  if (op.error) {
    return (
      <div className="empty">
        <h2>Could not open {operationId}</h2>
        <p>{op.error}</p>
        <p>The API may have been removed or changed; pick the operation again on the left.</p>
        <button className="btn" onClick={op.reload}>
          Try again
        </button>
      </div>
    );
  }
  if (!op.data) {
    return (
      <div className="empty">
        <span className="spinner" />
      </div>
    );
  }
  return <OperationDoc api={api} op={op.data} />;
}

function OperationDoc({ api, op }: { api: string; op: Operation }) {
  const workbench = useWorkbench();
  const actions = useActions();
  const notify = useToast();
  const [inserting, setInserting] = useState(false);
  const groups = (["path", "query", "header", "cookie"] as const).map((where) => [where, op.parameters.filter((p) => p.in === where)] as const).filter(([, list]) => list.length);

  const useInProgram = async () => {
    setInserting(true);
    try {
      actions.insertIntoProgram(await buildCallSnippet(api, op, (name) => loadSchema(workbench, api, name)));
    } catch (err) {
      notify({ kind: "error", text: `Could not build the call: ${errorMessage(err)}` });
    } finally {
      setInserting(false);
    }
  };

  return (
    <article className="opdoc scroll" aria-label={`${op.method.toUpperCase()} ${op.path}`}>
      <header className="opdoc-head">
        <div className="opdoc-line">
          <span className={methodClass(op.method)}>{op.method.toUpperCase()}</span>
          <code className="opdoc-path">{op.path}</code>
          <CopyButton text={op.path} label="Copy path" className="btn btn-small btn-ghost" />
          <span className="spacer" />
          <button className="btn btn-primary" onClick={useInProgram} disabled={inserting} title="Insert a typed call to this operation into the program editor">
            Use in program
          </button>
        </div>
        <h1 className="opdoc-title">
          {op.summary || op.id}
          {op.deprecated && <span className="pill pill-warn">deprecated</span>}
        </h1>
        <div className="opdoc-meta">
          <span>
            <span className="muted">call as </span>
            <code>
              apis.{api}.{op.id}()
            </code>
          </span>
          {op.tags.map((t) => (
            <span key={t} className="pill">
              {t}
            </span>
          ))}
          <SecurityNote op={op} />
        </div>
      </header>
      {op.description && op.description !== op.summary && (
        <section className="opdoc-section">
          <Markdown text={op.description} />
        </section>
      )}
      {groups.length > 0 && (
        <section className="opdoc-section">
          <h2 className="section-title">Parameters</h2>
          <ParametersTable groups={groups} />
        </section>
      )}
      {op.requestBody && (
        <section className="opdoc-section">
          <h2 className="section-title">
            Request body {op.requestBody.required ? <span className="schema-required">required</span> : <span className="muted">(optional)</span>}
          </h2>
          {op.requestBody.description && <Markdown text={op.requestBody.description} className="muted" />}
          <ContentView api={api} content={op.requestBody.content} openDepth={2} />
        </section>
      )}
      <section className="opdoc-section">
        <h2 className="section-title">Responses</h2>
        {Object.keys(op.responses).length === 0 && <p className="muted">The spec lists no responses.</p>}
        {Object.entries(op.responses).map(([status, response], i) => (
          <ResponseView key={status} api={api} status={status} response={response} initiallyOpen={i === 0 || /^2/.test(status)} />
        ))}
      </section>
    </article>
  );
}

function SecurityNote({ op }: { op: Operation }) {
  if (!op.security.length) return <span className="muted">no credentials needed</span>;
  const names = [...new Set(op.security.flatMap((req) => Object.keys(req)))];
  if (!names.length) return <span className="muted">no credentials needed</span>;
  return <span className="muted" title="The host attaches the credential set in the API's settings">auth: {names.join(" or ")}</span>;
}

function ParametersTable({ groups }: { groups: (readonly [string, Parameter[]])[] }) {
  return (
    <table className="grid opdoc-params">
      <thead>
        <tr>
          <th>Name</th>
          <th>In</th>
          <th>Type</th>
          <th>Description</th>
        </tr>
      </thead>
      <tbody>
        {groups.flatMap(([, list]) =>
          list.map((p) => (
            <tr key={`${p.in}:${p.name}`} className={p.deprecated ? "opdoc-deprecated" : ""}>
              <td>
                <code className="schema-name">{p.name}</code>
                {p.required && <span className="schema-required"> required</span>}
                {p.deprecated && <span className="pill pill-warn">deprecated</span>}
              </td>
              <td className="muted">{p.in}</td>
              <td>
                <code className="schema-type">{typeSummary(p.schema ?? (p.content ? Object.values(p.content)[0]?.schema : undefined))}</code>
                {Array.isArray(p.schema?.enum) && <div className="schema-enum">{(p.schema.enum as JsonValue[]).slice(0, 12).map((v, i) => <code key={i}>{JSON.stringify(v)}</code>)}</div>}
              </td>
              <td>
                {p.description ? <Markdown text={p.description} /> : <span className="muted">—</span>}
                {p.schema?.default !== undefined && <div className="muted">default {JSON.stringify(p.schema.default)}</div>}
                {p.example !== undefined && <div className="muted">example {JSON.stringify(p.example)}</div>}
              </td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

function ContentView({ api, content, openDepth }: { api: string; content: Record<string, MediaType>; openDepth: number }) {
  const types = Object.keys(content);
  const [selected, setSelected] = useState(types.includes("application/json") ? "application/json" : types[0]);
  const media = selected ? content[selected] : undefined;
  if (!types.length) return <p className="muted">No content described.</p>;
  const examples: [string, JsonValue][] = [];
  if (media?.example !== undefined) examples.push(["example", media.example]);
  for (const [name, ex] of Object.entries(media?.examples ?? {})) if (ex.value !== undefined) examples.push([ex.summary ?? name, ex.value]);
  return (
    <div className="opdoc-content">
      <div className="toolbar">
        {types.length > 1 ? (
          <select className="select" aria-label="Content type" value={selected} onChange={(e) => setSelected(e.target.value)}>
            {types.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        ) : (
          <code className="muted">{selected}</code>
        )}
      </div>
      <SchemaTree api={api} schema={media?.schema} openDepth={openDepth} />
      {examples.map(([name, value]) => (
        <details key={name} className="opdoc-example">
          <summary>Example: {name}</summary>
          <pre>{typeof value === "string" ? value : JSON.stringify(value, null, 2)}</pre>
        </details>
      ))}
    </div>
  );
}

function ResponseView({ api, status, response, initiallyOpen }: { api: string; status: string; response: ResponseSpec; initiallyOpen: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  const tone = /^2/.test(status) ? "pill-ok" : /^[45]/.test(status) ? "pill-danger" : "";
  const hasBody = !!response.content && Object.keys(response.content).length > 0;
  return (
    <div className="opdoc-response">
      <button className="opdoc-response-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span aria-hidden className="caret">
          {open ? "▾" : "▸"}
        </span>
        <span className={`pill ${tone}`}>{status}</span>
        <span className="opdoc-response-desc">{response.description}</span>
        {!hasBody && <span className="muted">no body</span>}
      </button>
      {open && (
        <div className="opdoc-response-body">
          {response.headers && Object.keys(response.headers).length > 0 && (
            <div className="opdoc-headers">
              <span className="muted">Headers: </span>
              {Object.entries(response.headers).map(([name, h]) => (
                <code key={name} title={h.description}>
                  {name}
                </code>
              ))}
            </div>
          )}
          {hasBody && <ContentView api={api} content={response.content!} openDepth={1} />}
        </div>
      )}
    </div>
  );
}
