/** What any view may ask the window to do: open a tab, run a program, show a run. */
import { createContext, useContext } from "react";

export type ViewKind = "inbox" | "history" | "vault" | "connect" | "settings";

export interface WorkbenchActions {
  openOperation(api: string, operationId: string): void;
  /** Opens a new program tab; returns its id. */
  newProgram(options?: { code?: string; name?: string; parentRunId?: string; policy?: "read_only" | "all" }): string;
  /** Inserts code at the cursor of the active (or last used) program, creating one when there is none. */
  insertIntoProgram(snippet: string | ((code: string) => string)): void;
  openRun(runId: string): void;
  /** Shows a run in the console at the bottom. */
  showInConsole(runId: string): void;
  openView(kind: ViewKind): void;
  openApiSettings(api: string): void;
  addApi(file?: File): void;
  focusOperationFilter(): void;
}

export const ActionsContext = createContext<WorkbenchActions | null>(null);

export function useActions(): WorkbenchActions {
  const actions = useContext(ActionsContext);
  if (!actions) throw new Error("useActions outside ActionsContext");
  return actions;
}

/** Live editors by program id, so "Use in program" can insert at the cursor. */
export interface EditorHandle {
  insert(text: string | ((code: string) => string)): void;
  focus(): void;
}
export const editorRegistry = new Map<string, EditorHandle>();
