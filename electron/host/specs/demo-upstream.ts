/**
 * The demo API's upstream: the bundled demo server, started in-process on
 * first use (on a free port, so each CLI process or app start gets its own)
 * and shared by every call after. Registered APIs carry their base URL; the
 * demo API's is only known once its server runs, hence `resolveBaseUrl`.
 */
import { startDemoServer, type DemoServer, type DemoServerOptions } from "../../../specs/demo/server.ts";
import type { RegisteredApi } from "./registry-types.ts";

export class DemoUpstream {
  private server: Promise<DemoServer> | undefined;
  private readonly options: DemoServerOptions;

  constructor(options: DemoServerOptions = {}) {
    this.options = options;
  }

  /** The demo server's URL, starting it on the first call. */
  async url(): Promise<string> {
    this.server ??= startDemoServer(this.options).catch((err: unknown) => {
      this.server = undefined; // let a later call try again
      throw err;
    });
    return (await this.server).url;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await (await server).close();
  }
}

/** What approvals of the demo API bind to: its server, whichever port it has in this process. */
export const DEMO_BOUND_BASE_URL = "workbench-demo://server";

/** Where an API's calls go: its base URL, or for the demo API the demo server's. */
export async function resolveBaseUrl(entry: RegisteredApi, demo: DemoUpstream): Promise<string> {
  if (entry.baseUrl) return entry.baseUrl;
  if (entry.source.kind === "demo") return demo.url();
  throw new Error(`the API "${entry.name}" has no base URL; set one in its settings`);
}
