/**
 * The desktop app's own preferences, in electron-store (main process only):
 * the window's bounds, the theme, whether waiting decisions raise an OS
 * notification, and the tabs open at the last close. What every face shares
 * (APIs, vault, runs, programs) stays in the data directory's own files; this
 * is only how the app looks and behaves. The file is `app-settings.json` in
 * Electron's userData folder, which main.ts points at the data directory.
 *
 * Schema-validated (ajv, by electron-store's conf). A file that does not parse
 * or breaks the schema is moved aside (`*.corrupt-<time>`), never silently
 * wiped, and the app starts from the defaults. Unknown keys are kept, so a
 * file a newer version wrote still opens in this one.
 *
 * Versioned by the app's version (electron-store's migrations). The first
 * migration is for 0.2.0, which adds notifications about finished agent runs:
 * `notifications` becomes `{decisions, runs}`. This version already reads both
 * shapes, so going back from 0.2.0 to 0.1.x keeps the choice.
 */
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import Store, { type Options, type Schema } from "electron-store";
import type { UiSession } from "../../shared/contract.ts";

export type ThemeChoice = "system" | "light" | "dark";
/** When a waiting decision raises an OS notification. */
export type NotificationChoice = "when-unfocused" | "always" | "never";

export interface WindowBounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface AppSettings {
  window: { bounds?: WindowBounds; maximized: boolean };
  theme: ThemeChoice;
  /** 0.1.x writes the choice for decisions; from 0.2.0 it is per kind of event (see SETTINGS_MIGRATIONS). */
  notifications: NotificationChoice | { decisions: NotificationChoice; runs: NotificationChoice };
  session: UiSession;
}

export const SETTINGS_FILE = "app-settings";

const choice = { type: "string", enum: ["when-unfocused", "always", "never"] } as const;
const integer = { type: "integer", minimum: -100_000, maximum: 100_000 } as const;

export const SETTINGS_SCHEMA: Schema<AppSettings> = {
  window: {
    type: "object",
    properties: {
      bounds: {
        type: "object",
        properties: { x: integer, y: integer, width: { type: "integer", minimum: 200, maximum: 100_000 }, height: { type: "integer", minimum: 150, maximum: 100_000 } },
        required: ["x", "y", "width", "height"],
      },
      maximized: { type: "boolean" },
    },
    required: ["maximized"],
  },
  theme: { type: "string", enum: ["system", "light", "dark"] },
  notifications: {
    anyOf: [choice, { type: "object", properties: { decisions: choice, runs: choice }, required: ["decisions", "runs"] }],
  },
  session: {
    type: "object",
    properties: {
      // Each tab is checked again (with the contract's schema) when the renderer saves it; here only the shape of the list.
      tabs: { type: "array", maxItems: 100, items: { type: "object", properties: { kind: { type: "string" } }, required: ["kind"] } },
      active: { type: "integer", minimum: 0, maximum: 99 },
    },
    required: ["tabs"],
  },
};

export const DEFAULT_SETTINGS: AppSettings = {
  window: { maximized: false },
  theme: "system",
  notifications: "when-unfocused",
  session: { tabs: [] },
};

type SettingsStore = Store<AppSettings>;

/** Keyed by the app version that first reads the new shape; each step leaves a store this version can also read. */
export const SETTINGS_MIGRATIONS: NonNullable<Options<AppSettings>["migrations"]> = {
  "0.2.0": (store) => {
    const current = store.get("notifications");
    if (typeof current === "string") store.set("notifications", { decisions: current, runs: "never" });
  },
};

/** The choice for waiting decisions, whichever version wrote the file. */
export function decisionNotifications(settings: Pick<AppSettings, "notifications">): NotificationChoice {
  return typeof settings.notifications === "string" ? settings.notifications : settings.notifications.decisions;
}

/** Writes the choice for decisions in the shape the file already has. */
export function withDecisionNotifications(current: AppSettings["notifications"], next: NotificationChoice): AppSettings["notifications"] {
  return typeof current === "string" ? next : { ...current, decisions: next };
}

export interface OpenedSettings {
  store: SettingsStore;
  /** Set when the old file was unreadable and moved aside. */
  notice?: string;
}

/**
 * Opens the settings in `dir` as version `projectVersion` of the app (the
 * migrations up to it run). electron-store imports Electron, so this runs in
 * the main process only.
 */
export function openSettings(dir: string, projectVersion: string, options: { now?: () => number } = {}): OpenedSettings {
  const make = () =>
    new Store<AppSettings>({
      name: SETTINGS_FILE,
      cwd: dir,
      schema: SETTINGS_SCHEMA,
      defaults: DEFAULT_SETTINGS,
      migrations: SETTINGS_MIGRATIONS,
      projectVersion,
      clearInvalidConfig: false,
      configFileMode: 0o600,
    });
  try {
    return { store: make() };
  } catch (err) {
    const file = join(dir, `${SETTINGS_FILE}.json`);
    if (!existsSync(file)) throw err;
    const aside = `${file}.corrupt-${(options.now ?? Date.now)()}`;
    renameSync(file, aside);
    const reason = err instanceof Error ? err.message : String(err);
    return { store: make(), notice: `the app's settings could not be read (${reason}); they were moved to ${aside} and the defaults are used` };
  }
}
