/**
 * The `console` every program has, as a TypeScript declaration: the host puts
 * it in the editor's generated `.d.ts`, and the renderer falls back to it
 * before the host's declarations arrive.
 */
export const CONSOLE_DECLARATION = `interface WorkbenchConsole {
  /** Adds a line to the run's logs. */
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
}
/** Lines logged here appear in the run's logs (and in the envelope an agent reads). */
declare const console: WorkbenchConsole;
`;
