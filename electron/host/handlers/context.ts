/**
 * What the channel handlers work over: one Workbench, the shell they serve
 * (the Electron window or a browser tab of `workbench serve`), and where the
 * MCP connection details come from. Who is calling (`Caller`) travels with
 * each request, so a decision made from the CLI is recorded as such.
 */
import type { ChannelName, ConnectInfo, ParsedRequestOf, ReplyOf, UiSession } from "../../../shared/contract.ts";
import type { Workbench } from "../workbench.ts";

/** The MCP endpoint's details for the Connect screen; rotating invalidates the old token at once. */
export interface ConnectProvider {
  info(): ConnectInfo;
  rotate(): Promise<ConnectInfo>;
}

/** Where the desktop app keeps its open tabs between launches (its own settings, not the data directory). */
export interface UiSessionStore {
  get(): UiSession | null;
  save(session: UiSession): void;
}

export interface HandlerContext {
  workbench: Workbench;
  shell: "electron" | "browser";
  connect: ConnectProvider;
  /** Only the app has one; a browser tab's session is not kept. */
  uiSession?: UiSessionStore;
  /**
   * Opens a URL in the system browser (the app passes Electron's
   * shell.openExternal). Without it, a sign-in's URL goes back to the
   * renderer, which is itself a tab of the system browser (`workbench serve`).
   */
  openExternal?: (url: string) => Promise<void>;
  /** Used to fetch specs given by URL; defaults to the global fetch. */
  fetch?: typeof fetch;
  log?: (message: string) => void;
}

/** Who sent a request: a person in the UI (window or tab) or the CLI talking to a running instance. */
export interface Caller {
  actor: "ui" | "cli";
}

export type ChannelHandler<C extends ChannelName> = (request: ParsedRequestOf<C>, caller: Caller) => Promise<ReplyOf<C>>;
export type ChannelHandlers = { [C in ChannelName]: ChannelHandler<C> };
export type HandlerGroup<K extends ChannelName> = { [C in K]: ChannelHandler<C> };
