/**
 * One event bus for the host: the run engine, the registry and the vault
 * publish; the UI bridge and the MCP server subscribe. A listener that throws
 * is logged and skipped, never allowed to break the publisher.
 */
import type { WorkbenchEvent } from "../../shared/events.ts";

export type EventListener = (event: WorkbenchEvent) => void;

export class EventBus {
  readonly #listeners = new Set<EventListener>();
  readonly #log: (message: string) => void;

  constructor(log: (message: string) => void = () => {}) {
    this.#log = log;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(event: WorkbenchEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.#log(`event listener failed on ${event.type}: ${String(err)}`);
      }
    }
  }

  /** Resolves with the first event that matches (for CLI waits and tests). */
  next<T extends WorkbenchEvent>(match: (event: WorkbenchEvent) => event is T, timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching event within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.subscribe((event) => {
        if (match(event)) {
          clearTimeout(timer);
          off();
          resolve(event);
        }
      });
    });
  }
}
