/**
 * Adding an API: a spec from a file (picked or dropped), a URL or pasted text;
 * the repair report before anything is registered; then its name, base URL,
 * credential, globals and validation.
 */
import { useEffect, useRef, useState } from "react";
import type { IngestPreview, SpecSource } from "../../shared/contract.ts";
import { apiNameProblem } from "../../shared/api-config.ts";
import { errorMessage } from "../bridge/index.ts";
import { useActions } from "../app/actions.ts";
import { useToast } from "../app/toasts.tsx";
import { useChannel, useWorkbench } from "../app/workbench-context.tsx";
import { Modal } from "../common/Modal.tsx";
import { ApiConfigForm, configFromDraft, draftFromConfig, serverUrl, type ConfigDraft } from "./ApiConfigForm.tsx";
import { RepairReport } from "./RepairReport.tsx";
import "./AddApiDialog.css";

type SourceKind = "file" | "url" | "paste";
const MAX_BYTES = 60 * 1024 * 1024;

export function AddApiDialog({ initialFile, onClose }: { initialFile?: File; onClose: () => void }) {
  const api = useWorkbench();
  const notify = useToast();
  const actions = useActions();
  const existing = useChannel("apis.list", {});
  const [kind, setKind] = useState<SourceKind>("file");
  const [url, setUrl] = useState("");
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState<string>();
  const [source, setSource] = useState<SpecSource>();
  const [preview, setPreview] = useState<IngestPreview>();
  const [reading, setReading] = useState(false);
  const [readError, setReadError] = useState<string>();
  const [name, setName] = useState("");
  const [draft, setDraft] = useState<ConfigDraft>(draftFromConfig(undefined));
  const [adding, setAdding] = useState(false);
  const [addError, setAddError] = useState<string>();
  const [dragOver, setDragOver] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const read = async (next: SpecSource) => {
    setReading(true);
    setReadError(undefined);
    setPreview(undefined);
    setAddError(undefined);
    try {
      const result = await api["apis.preview"]({ source: next });
      setSource(next);
      setPreview(result);
      if (result.ok) {
        setName(result.suggestedName ?? "");
        const servers = result.servers ?? [];
        setDraft(draftFromConfig(undefined, servers[0] ? serverUrl(servers[0]) : ""));
      }
    } catch (err) {
      setReadError(errorMessage(err));
    } finally {
      setReading(false);
    }
  };

  const readFile = async (file: File) => {
    setKind("file");
    setFileName(file.name);
    if (file.size > MAX_BYTES) {
      setReadError(`${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; the limit is 60 MB.`);
      return;
    }
    try {
      await read({ kind: "text", text: await file.text(), filename: file.name });
    } catch (err) {
      setReadError(`Could not read ${file.name}: ${errorMessage(err)}`);
    }
  };

  useEffect(() => {
    if (initialFile) void readFile(initialFile);
    // Read the dropped file once, when the dialog opens.
  }, []);

  const taken = existing.data?.some((a) => a.name === name);
  const nameProblem = name ? (apiNameProblem(name) ?? (taken ? `An API named "${name}" exists; pick another name, or remove it first.` : undefined)) : "Give the API a name.";
  const built = configFromDraft(draft);

  const add = async () => {
    if (!source || nameProblem || !built.config) return;
    setAdding(true);
    setAddError(undefined);
    try {
      const ack = await api["apis.add"]({ name, source, config: built.config });
      if (!ack.ok) setAddError(ack.message);
      else {
        notify({ kind: "success", text: `Added ${name}: ${preview?.operations ?? 0} operations. Call it as apis.${name}.<operation>().` });
        onClose();
        actions.openApiSettings(name);
      }
    } catch (err) {
      setAddError(errorMessage(err));
    } finally {
      setAdding(false);
    }
  };

  return (
    <Modal title="Add an API" onClose={onClose} wide>
      <div className="addapi">
        <div className="segmented" role="tablist" aria-label="Where the spec comes from">
          {(["file", "url", "paste"] as const).map((k) => (
            <button key={k} role="tab" aria-selected={kind === k} id={`src-${k}`} aria-controls="src-panel" onClick={() => setKind(k)}>
              {k === "file" ? "File" : k === "url" ? "URL" : "Paste"}
            </button>
          ))}
        </div>
        <div id="src-panel" role="tabpanel" aria-labelledby={`src-${kind}`} className="addapi-source">
          {kind === "file" && (
            <div
              className={`dropzone ${dragOver ? "dropzone-over" : ""}`}
              onDragOver={(e) => {
                e.preventDefault();
                e.stopPropagation();
                setDragOver(true);
              }}
              onDragLeave={() => setDragOver(false)}
              onDrop={(e) => {
                e.preventDefault();
                e.stopPropagation();
                setDragOver(false);
                const file = e.dataTransfer.files[0];
                if (file) void readFile(file);
              }}
            >
              <p>{fileName ? <strong>{fileName}</strong> : "Drop an OpenAPI 3.x or Swagger 2.0 spec here (JSON or YAML)"}</p>
              <button type="button" className="btn" onClick={() => fileInput.current?.click()}>
                {fileName ? "Choose another file…" : "Choose a file…"}
              </button>
              <input
                ref={fileInput}
                type="file"
                accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
                hidden
                aria-label="Spec file"
                data-testid="spec-file"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  if (file) void readFile(file);
                  e.target.value = "";
                }}
              />
            </div>
          )}
          {kind === "url" && (
            <form
              className="addapi-url"
              onSubmit={(e) => {
                e.preventDefault();
                if (url.trim()) void read({ kind: "url", url: url.trim() });
              }}
            >
              <input className="input" type="url" aria-label="Spec URL" placeholder="https://example.com/openapi.json" value={url} onChange={(e) => setUrl(e.target.value)} autoFocus />
              <button className="btn" disabled={!url.trim() || reading}>
                Fetch and read
              </button>
            </form>
          )}
          {kind === "paste" && (
            <div className="addapi-paste">
              <textarea className="textarea" rows={8} aria-label="Spec text" placeholder="Paste a spec (JSON or YAML)" value={text} onChange={(e) => setText(e.target.value)} autoFocus spellCheck={false} />
              <button type="button" className="btn" disabled={!text.trim() || reading} onClick={() => read({ kind: "text", text })}>
                Read
              </button>
            </div>
          )}
        </div>
        {reading && (
          <p className="muted">
            <span className="spinner" /> Reading the spec…
          </p>
        )}
        {readError && (
          <div className="error-banner" role="alert">
            <span>
              <strong>Could not read the spec.</strong> {readError}
            </span>
          </div>
        )}
        {preview && !preview.ok && (
          <div className="addapi-result">
            <div className="error-banner" role="alert">
              <span>
                <strong>This is not a spec the workbench can use.</strong> {preview.error?.message}
                {preview.error?.pointer && (
                  <>
                    {" "}
                    (at <code>{preview.error.pointer}</code>)
                  </>
                )}
              </span>
            </div>
            <RepairReport warnings={preview.warnings} />
          </div>
        )}
        {preview?.ok && (
          <div className="addapi-result">
            <div className="addapi-summary">
              <strong>{preview.title}</strong> <span className="muted">version {preview.version}</span> <span className="pill">OpenAPI {preview.openapi}</span>
              <span className="pill pill-accent">{preview.operations} operations</span>
            </div>
            <RepairReport warnings={preview.warnings} />
            <form
              className="addapi-config"
              onSubmit={(e) => {
                e.preventDefault();
                void add();
              }}
            >
              <label className="field">
                <span className="field-label">Name (programs call it as apis.{name || "<name>"})</span>
                <input className="input" value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} aria-invalid={!!name && !!nameProblem} />
                {name && nameProblem && <span className="field-error">{nameProblem}</span>}
              </label>
              <ApiConfigForm
                draft={draft}
                onChange={setDraft}
                servers={preview.servers ?? []}
                schemes={(preview.securitySchemes ?? []).map((s) => ({ name: s, label: `${s} (from the spec)` }))}
                apiName={name}
              />
              {built.problem && <p className="field-error">{built.problem}</p>}
              {addError && (
                <div className="error-banner" role="alert">
                  <span>
                    <strong>Not added.</strong> {addError}
                  </span>
                </div>
              )}
              <div className="toolbar">
                <button type="submit" className="btn btn-primary" disabled={adding || !!nameProblem || !built.config}>
                  {adding ? "Adding…" : "Add API"}
                </button>
                <button type="button" className="btn" onClick={onClose}>
                  Cancel
                </button>
              </div>
            </form>
          </div>
        )}
      </div>
    </Modal>
  );
}
