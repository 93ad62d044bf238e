import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpTokenStore } from "./token.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wb-mcp-token-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the MCP token file", () => {
  it("keeps the token and port across restarts, owner-only", () => {
    const first = new McpTokenStore(dir);
    first.rememberPort(4321);
    const again = new McpTokenStore(dir);
    expect(again.current()).toBe(first.current());
    expect(again.lastPort()).toBe(4321);
    expect(again.notice).toBeUndefined();
    expect(statSync(join(dir, "mcp.json")).mode & 0o777).toBe(0o600);
  });

  it("moves an unreadable mcp.json aside instead of overwriting it, and says a new token was made", () => {
    const damaged = '{"token": "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8", "port": 43';
    writeFileSync(join(dir, "mcp.json"), damaged);
    const store = new McpTokenStore(dir);
    expect(store.notice).toMatch(/^mcp\.json could not be read \(it is not valid JSON.*kept as .*mcp\.json\.unreadable-.* a new MCP token was made/);
    const kept = readdirSync(dir).filter((f) => f.startsWith("mcp.json.unreadable-"));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(dir, kept[0]!), "utf8")).toBe(damaged);
    expect(JSON.parse(readFileSync(join(dir, "mcp.json"), "utf8")).token).toBe(store.current());
    expect(new McpTokenStore(dir).notice).toBeUndefined();
  });
});
