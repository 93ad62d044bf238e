/**
 * A real MCP client (the official SDK) over Streamable HTTP at `/mcp`, as an
 * agent would connect, collecting the notifications the server sends.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

export interface AgentHandle {
  client: Client;
  notifications: { method: string; params: unknown }[];
  /** Resolves when a notification mentions `text` (a run id). */
  waitForNotification(text: string, timeoutMs?: number): Promise<{ method: string; params: unknown }>;
  close(): Promise<void>;
}

export async function connectAgent(mcpUrl: string, token: string, name = "e2e-agent", version = "1.0.0"): Promise<AgentHandle> {
  const client = new Client({ name, version });
  const notifications: { method: string; params: unknown }[] = [];
  const waiters: { text: string; resolve: (n: { method: string; params: unknown }) => void }[] = [];
  const record = (n: { method: string; params: unknown }) => {
    notifications.push(n);
    for (const w of [...waiters]) {
      if (JSON.stringify(n.params).includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(n);
      }
    }
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => record(n));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => record(n));
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    client,
    notifications,
    waitForNotification(text, timeoutMs = 30_000) {
      const seen = notifications.find((n) => JSON.stringify(n.params).includes(text));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no notification mentioning ${text} within ${timeoutMs} ms; got ${JSON.stringify(notifications)}`)), timeoutMs);
        waiters.push({ text, resolve: (n) => (clearTimeout(timer), resolve(n)) });
      });
    },
    close: () => client.close(),
  };
}

/** The text of a tool result's first text block, parsed as JSON when it is JSON. */
export function toolJson(result: unknown): Record<string, unknown> {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  const text = content.find((c) => c.type === "text")?.text ?? "";
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}
