/**
 * The MCP endpoint's bearer token, kept in `<dataDir>/mcp.json` (owner-only)
 * so that an agent configured once keeps working across restarts, together
 * with the port last served on (tried first next time, for the same reason).
 * Rotating writes a new token; whoever checks requests reads `current()`
 * each time, so the old token stops working at once.
 *
 * An mcp.json that cannot be understood is moved aside like every other file
 * of the data directory (never overwritten: it holds the token agents were
 * given), and a new token is made and said so.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { inspectJsonFile, readJsonFile, writeJsonFile, type JsonFileSpec, type JsonFileState } from "../common/json-file.ts";

export const MCP_TOKEN_FILE = "mcp.json";

const fileShape = z.object({ token: z.string().min(32), port: z.number().int().min(1).max(65535).optional() });

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

function tokenFile(dataDir: string): JsonFileSpec<z.infer<typeof fileShape>> {
  return { path: join(dataDir, MCP_TOKEN_FILE), schema: fileShape };
}

/** mcp.json's state, changing nothing (for `workbench doctor`). */
export function inspectTokenFile(dataDir: string): JsonFileState<z.infer<typeof fileShape>> {
  return inspectJsonFile(tokenFile(dataDir));
}

export class McpTokenStore {
  readonly path: string;
  /** Set when mcp.json could not be used and a new token was made: what happened, for the person. */
  readonly notice: string | undefined;
  #token: string;
  #port: number | undefined;

  /** Throws when mcp.json exists but cannot be read at all (permissions): a new token would strand every configured agent. */
  constructor(dataDir: string, now: () => Date = () => new Date()) {
    const file = tokenFile(dataDir);
    this.path = file.path;
    const read = readJsonFile(file, now);
    if (read.status === "unreadable" || read.status === "newer") throw new Error(`${this.path}: ${read.problem}`);
    const loaded = read.status === "ok" ? read.value : undefined;
    this.#token = loaded?.token ?? newToken();
    this.#port = loaded?.port;
    if (read.status === "moved-aside") {
      this.notice = `${MCP_TOKEN_FILE} could not be read (${read.problem}); it was kept as ${read.keptAt} and a new MCP token was made: give agents the new one (workbench serve prints it; Connect in the app shows it)`;
    }
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
    writeJsonFile(this.path, { token: this.#token, ...(this.#port ? { port: this.#port } : {}) });
  }
}
