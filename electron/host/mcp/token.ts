/**
 * The MCP endpoint's bearer token, kept in `<dataDir>/mcp.json` (owner-only)
 * so that an agent configured once keeps working across restarts, together
 * with the port last served on (tried first next time, for the same reason).
 * Rotating writes a new token; whoever checks requests reads `current()`
 * each time, so the old token stops working at once.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../common/atomic-file.ts";

const fileShape = z.object({ token: z.string().min(32), port: z.number().int().min(1).max(65535).optional() });

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export class McpTokenStore {
  readonly path: string;
  #token: string;
  #port: number | undefined;

  constructor(dataDir: string) {
    this.path = join(dataDir, "mcp.json");
    let loaded: z.infer<typeof fileShape> | undefined;
    try {
      const parsed = fileShape.safeParse(JSON.parse(readFileSync(this.path, "utf8")));
      if (parsed.success) loaded = parsed.data;
    } catch {
      // Missing or unreadable: a new token is made below.
    }
    this.#token = loaded?.token ?? newToken();
    this.#port = loaded?.port;
    if (!loaded) this.#save();
  }

  current(): string {
    return this.#token;
  }

  lastPort(): number | undefined {
    return this.#port;
  }

  rememberPort(port: number): void {
    if (port === this.#port) return;
    this.#port = port;
    this.#save();
  }

  rotate(): string {
    this.#token = newToken();
    this.#save();
    return this.#token;
  }

  #save(): void {
    writeFileAtomic(this.path, `${JSON.stringify({ token: this.#token, ...(this.#port ? { port: this.#port } : {}) }, null, 2)}\n`);
  }
}
