/**
 * The app's menus as plain templates (main.ts hands them to Electron's
 * Menu.buildFromTemplate): the application menu, with the theme and the
 * notification choice that the settings keep, and the tray's list of waiting
 * decisions. Developer tools and reload appear only with WORKBENCH_DEBUG.
 */
import type { TrayEntry } from "./attention.ts";
import type { NotificationChoice, ThemeChoice } from "./settings.ts";

/** The subset of Electron's MenuItemConstructorOptions used here. */
export interface MenuItemSpec {
  label?: string;
  role?: string;
  type?: "normal" | "separator" | "submenu" | "checkbox" | "radio";
  checked?: boolean;
  enabled?: boolean;
  accelerator?: string;
  click?: () => void;
  submenu?: MenuItemSpec[];
}

export interface AppMenuState {
  platform: NodeJS.Platform;
  debug: boolean;
  theme: ThemeChoice;
  notifications: NotificationChoice;
  setTheme(theme: ThemeChoice): void;
  setNotifications(choice: NotificationChoice): void;
  showInbox(): void;
}

const THEMES: [ThemeChoice, string][] = [
  ["system", "Follow the System"],
  ["light", "Light"],
  ["dark", "Dark"],
];
const NOTIFY: [NotificationChoice, string][] = [
  ["when-unfocused", "Notify When the App Is in the Background"],
  ["always", "Always Notify"],
  ["never", "Never Notify"],
];

export function applicationMenu(state: AppMenuState): MenuItemSpec[] {
  const separator: MenuItemSpec = { type: "separator" };
  const view: MenuItemSpec[] = [
    { label: "Theme", submenu: THEMES.map(([theme, label]) => ({ label, type: "radio", checked: state.theme === theme, click: () => state.setTheme(theme) })) },
    separator,
    { role: "resetZoom" },
    { role: "zoomIn" },
    { role: "zoomOut" },
    separator,
    { role: "togglefullscreen" },
    ...(state.debug ? [separator, { role: "reload" }, { role: "toggleDevTools" }] : []),
  ];
  const approvals: MenuItemSpec[] = [
    // No accelerator: the window's own Alt+I opens the inbox, and Ctrl+Shift+I belongs to the developer tools.
    { label: "Show Approvals", click: () => state.showInbox() },
    separator,
    ...NOTIFY.map(([choice, label]): MenuItemSpec => ({ label, type: "radio", checked: state.notifications === choice, click: () => state.setNotifications(choice) })),
  ];
  return [
    ...(state.platform === "darwin" ? [{ role: "appMenu" }] : [{ label: "File", submenu: [{ role: "quit" }] }]),
    { role: "editMenu" },
    { label: "View", submenu: view },
    { label: "Approvals", submenu: approvals },
    { role: "windowMenu" },
  ];
}

export interface TrayMenuActions {
  open(target: TrayEntry["target"]): void;
  showWindow(): void;
  quit(): void;
}

export function trayMenu(entries: TrayEntry[], actions: TrayMenuActions): MenuItemSpec[] {
  const heading = entries.length === 0 ? "Nothing waits for your approval" : `${entries.length} ${entries.length === 1 ? "call waits" : "calls wait"} for your approval`;
  return [
    { label: heading, enabled: false },
    ...entries.slice(0, 20).map((entry): MenuItemSpec => ({ label: entry.label, click: () => actions.open(entry.target) })),
    ...(entries.length > 20 ? [{ label: `…and ${entries.length - 20} more`, click: () => actions.open({ kind: "inbox" }) }] : []),
    { type: "separator" },
    { label: "Open Codemode Workbench", click: () => actions.showWindow() },
    { label: "Quit Codemode Workbench", click: () => actions.quit() },
  ];
}

export function trayTooltip(count: number): string {
  return count === 0 ? "Codemode Workbench" : `Codemode Workbench: ${count} waiting for approval`;
}
