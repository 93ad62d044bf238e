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
  /** The text this editor last reported; state lagging behind fast typing must not be written back. */
  const emitted = useRef(program.code);
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
    const sub = model.onDidChangeContent(() => {
      emitted.current = model.getValue();
      callbacks.current.onChange({ code: emitted.current });
    });
    const markers = monaco.editor.onDidChangeMarkers((uris) => {
      if (uris.some((u) => u.toString() === uri.toString())) {
        setProblems(monaco.editor.getModelMarkers({ resource: uri }).filter((m) => m.severity >= monaco.MarkerSeverity.Warning).length);
      }
    });
    // Until the person puts the cursor somewhere, inserted calls go before the final `return` (or at the end).
    let placed = false;
    const cursor = ed.onDidChangeCursorPosition((e) => {
      if (e.source === "mouse" || e.source === "keyboard") placed = true;
    });
    editorRegistry.set(program.id, {
      insert(snippet) {
        const text = typeof snippet === "string" ? snippet : snippet(model.getValue());
        let line: number;
        if (placed) line = (ed.getSelection() ?? new monaco.Selection(1, 1, 1, 1)).endLineNumber;
        else {
          const lines = model.getLinesContent();
          const ret = lines.findIndex((l) => /^return\b/.test(l));
          line = ret >= 0 ? ret : lines.length;
          while (line > 0 && !lines[line - 1]!.trim()) line--;
        }
        const column = line === 0 ? 1 : model.getLineMaxColumn(line);
        const range = new monaco.Range(Math.max(line, 1), column, Math.max(line, 1), column);
        const textToInsert = line === 0 ? `${text}\n` : `\n${text}`;
        ed.executeEdits("use-in-program", [{ range, text: textToInsert, forceMoveMarkers: true }]);
        ed.pushUndoStop();
        const end = ed.getPosition();
        if (end) ed.revealLineInCenterIfOutsideViewport(end.lineNumber);
        placed = true;
      },
      focus: () => ed.focus(),
    });
    return () => {
      editorRegistry.delete(program.id);
      cursor.dispose();
      sub.dispose();
      markers.dispose();
      ed.dispose();
      // Keep the model while the program exists (undo history); dispose when it is closed.
      if (!document.querySelector(`[data-program="${program.id}"]`)) model.dispose();
    };
  }, [program.id]);

  // Outside edits (an undo of a closed tab, an insert while no editor was mounted) reach the model.
  useEffect(() => {
    const model = editor.current?.getModel();
    if (!model || program.code === emitted.current || program.code === model.getValue()) return;
    emitted.current = program.code;
    model.pushEditOperations([], [{ range: model.getFullModelRange(), text: program.code }], () => null);
  }, [program.code]);

  // Switching to the tab puts the cursor in the editor; the first load leaves focus where the page starts.
  const shownBefore = useRef(false);
  useEffect(() => {
    if (visible && shownBefore.current) requestAnimationFrame(() => editor.current?.focus());
    if (visible) shownBefore.current = true;
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
