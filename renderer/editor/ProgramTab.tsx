/**
 * A program in Monaco: completion and docs for `apis.<name>.<operation>(`
 * from the registered specs, run with Ctrl+Enter under the chosen policy.
 * Loaded lazily: the rest of the window does not wait for Monaco.
 */
import { useEffect, useRef, useState } from "react";
import type { SavedProgram } from "../../shared/contract.ts";
import type { ProgramMeta } from "../app/App.tsx";
import { editorRegistry } from "../app/actions.ts";
import { useDeclarations } from "./declarations.ts";
import { monaco, themeName } from "./monaco.ts";
import "./ProgramTab.css";

export default function ProgramTab({
  program,
  visible,
  meta,
  onChange,
  onMeta,
  onRun,
}: {
  program: SavedProgram;
  visible: boolean;
  meta: ProgramMeta;
  onChange: (patch: Partial<SavedProgram>) => void;
  onMeta: (patch: Partial<ProgramMeta>) => void;
  onRun: () => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const callbacks = useRef({ onChange, onRun, running: meta.running });
  callbacks.current = { onChange, onRun, running: meta.running };
  const declarationsError = useDeclarations();
  const [problems, setProblems] = useState(0);

  useEffect(() => {
    const uri = monaco.Uri.parse(`file:///programs/${program.id}.ts`);
    const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(program.code, "typescript", uri);
    const ed = monaco.editor.create(host.current!, {
      model,
      theme: themeName(),
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      lineHeight: 20,
      fontFamily: getComputedStyle(document.body).getPropertyValue("--mono") || "monospace",
      scrollBeyondLastLine: false,
      tabSize: 2,
      fixedOverflowWidgets: true,
      wordBasedSuggestions: "off",
      padding: { top: 8, bottom: 8 },
      renderLineHighlight: "line",
      ariaLabel: `Program ${program.name}. Press Ctrl+Enter to run.`,
      suggest: { showWords: false },
      quickSuggestions: { other: true, comments: false, strings: false },
    });
    editor.current = ed;
    ed.addAction({
      id: "workbench.run",
      label: "Run program",
      keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter],
      run: () => {
        if (!callbacks.current.running) callbacks.current.onRun();
      },
    });
    const sub = model.onDidChangeContent(() => callbacks.current.onChange({ code: model.getValue() }));
    const markers = monaco.editor.onDidChangeMarkers((uris) => {
      if (uris.some((u) => u.toString() === uri.toString())) {
        setProblems(monaco.editor.getModelMarkers({ resource: uri }).filter((m) => m.severity >= monaco.MarkerSeverity.Warning).length);
      }
    });
    editorRegistry.set(program.id, {
      insert(text) {
        const selection = ed.getSelection() ?? new monaco.Selection(1, 1, 1, 1);
        const line = model.getLineContent(selection.startLineNumber);
        // Insert on its own line: after the current line when the cursor sits inside code.
        const atLineStart = selection.isEmpty() && selection.startColumn === 1 && !line.trim();
        const range = atLineStart ? selection : new monaco.Range(selection.endLineNumber, model.getLineMaxColumn(selection.endLineNumber), selection.endLineNumber, model.getLineMaxColumn(selection.endLineNumber));
        const textToInsert = atLineStart ? `${text}\n` : `\n${text}`;
        ed.executeEdits("use-in-program", [{ range, text: textToInsert, forceMoveMarkers: true }]);
        ed.pushUndoStop();
        ed.revealLineInCenter(ed.getPosition()?.lineNumber ?? 1);
      },
      focus: () => ed.focus(),
    });
    return () => {
      editorRegistry.delete(program.id);
      sub.dispose();
      markers.dispose();
      ed.dispose();
      // Keep the model while the program exists (undo history); dispose when it is closed.
      if (!document.querySelector(`[data-program="${program.id}"]`)) model.dispose();
    };
  }, [program.id]);

  // Outside edits (restore, "Use in program" without an editor) reach the model.
  useEffect(() => {
    const model = editor.current?.getModel();
    if (model && model.getValue() !== program.code) model.setValue(program.code);
  }, [program.code]);

  useEffect(() => {
    if (visible) requestAnimationFrame(() => editor.current?.focus());
  }, [visible]);

  return (
    <div className="program" data-program={program.id}>
      <div className="program-toolbar toolbar">
        <input
          className="input program-name"
          aria-label="Program name"
          value={program.name}
          maxLength={200}
          onChange={(e) => onChange({ name: e.target.value })}
        />
        {meta.parentRunId ? (
          <span className="program-parent">
            <span className="muted">Re-running</span> <code>{meta.parentRunId}</code>
            <label className="program-check">
              <input type="checkbox" checked={meta.reuseSaved ?? true} onChange={(e) => onMeta({ reuseSaved: e.target.checked })} />
              reuse its saved responses
            </label>
            <button className="btn btn-small btn-ghost" onClick={() => onMeta({ parentRunId: undefined })} title="Run as a new program instead">
              Detach
            </button>
          </span>
        ) : (
          <div className="segmented" role="radiogroup" aria-label="Policy">
            <button role="radio" aria-checked={program.policy === "read_only"} onClick={() => onChange({ policy: "read_only" })} title="Only safe methods (GET, HEAD, OPTIONS) are sent; writes are rejected">
              Read-only
            </button>
            <button role="radio" aria-checked={program.policy === "all"} onClick={() => onChange({ policy: "all" })} title="Writes may be sent, each after your approval in the inbox">
              Can write (asks you)
            </button>
          </div>
        )}
        <span className="spacer" />
        {problems > 0 && (
          <span className="pill pill-warn" title="TypeScript problems in this program (F8 to go to the next)">
            {problems} problem{problems === 1 ? "" : "s"}
          </span>
        )}
        <button className="btn btn-primary" onClick={onRun} disabled={meta.running} aria-keyshortcuts="Control+Enter">
          {meta.running ? (
            <>
              <span className="spinner" /> Running
            </>
          ) : (
            <>
              Run <kbd>Ctrl+Enter</kbd>
            </>
          )}
        </button>
      </div>
      {declarationsError && (
        <div className="error-banner program-banner" role="alert">
          {declarationsError}
        </div>
      )}
      <div className="program-editor" ref={host} />
    </div>
  );
}
