/**
 * MCP round trips of a trivial execute (`async () => 1`: one sandbox run, no
 * upstream call, one run saved) through the SDK's real client: over
 * Streamable HTTP to the loopback server, over stdio to a headless
 * `workbench mcp`, and over stdio relayed to a running instance's /mcp. The
 * same program run in-process is the baseline: the difference is what MCP,
 * the transport and the relay cost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Workbench } from "../electron/host/workbench.ts";
import { startWorkbenchServer } from "../electron/serve.ts";
import { childEnv, httpMcpClient, REPO_ROOT, TEST_VAULT_KEY, WORKBENCH_BIN } from "../electron/serve/test-support.ts";
import { percentile, type BenchRow, type BenchSection } from "./table.ts";

const WARMUP = 10;
const SAMPLES = 150;
const PROGRAM = { name: "execute_api_code", arguments: { code: "async () => 1" } };

export default async function mcpBench(): Promise<BenchSection> {
  const rows: BenchRow[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), "mcp-bench-"));
  const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY } });
  if (!opened.ok) throw new Error(opened.message);
  const workbench = opened.workbench;
  const server = await startWorkbenchServer({ workbench, kind: "serve", shell: "browser", rendererDir: false, reusePort: false });
  try {
    const inProcess = await sample(() => workbench.execute({ code: "async () => 1", policy: "read_only", source: { kind: "cli" } }));
    const baseline = percentile(inProcess, 50);
    rows.push(...figures("in-process execute (no MCP)", inProcess));

    const http = await httpMcpClient(server.mcpUrl, server.connect.info().token, "bench");
    rows.push(...figures("MCP execute over Streamable HTTP", await sample(() => http.callTool(PROGRAM)), baseline));
    rows.push(...figures("MCP tools/list over Streamable HTTP", await sample(() => http.listTools())));
    await http.close();

    // A client that launches `workbench mcp` while the server above runs gets the relay.
    const relayed = await stdioClient(dataDir);
    rows.push(...figures("MCP execute over stdio, relayed to the running instance", await sample(() => relayed.client.callTool(PROGRAM)), baseline));
    await relayed.client.close();
  } finally {
    await server.close();
    await workbench.close();
  }

  // With nothing running, `workbench mcp` is a headless host itself.
  const headlessDir = mkdtempSync(join(tmpdir(), "mcp-bench-headless-"));
  const started = performance.now();
  const headless = await stdioClient(headlessDir);
  const connectMs = performance.now() - started;
  rows.push(...figures("MCP execute over stdio, headless workbench mcp", await sample(() => headless.client.callTool(PROGRAM))));
  rows.push({ name: "stdio: spawn workbench mcp + initialize (headless)", value: connectMs, unit: "ms", note: "one sample: Node start, opening the data directory, the loopback server, the MCP handshake" });
  await headless.client.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(headlessDir, { recursive: true, force: true });
  return { title: `MCP round trip of a trivial execute (${SAMPLES} calls after ${WARMUP} warm-up)`, rows };
}

async function stdioClient(dataDir: string) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [WORKBENCH_BIN, "mcp", "--data-dir", dataDir], cwd: REPO_ROOT, env: childEnv(dataDir) as Record<string, string>, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" }, { capabilities: {} });
  await client.connect(transport);
  return { client };
}

async function sample(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times;
}

function figures(name: string, times: number[], baseline?: number): BenchRow[] {
  const base = baseline === undefined ? {} : { baseline: { name: "in-process p50", value: baseline } };
  return [
    { name: `${name} p50`, value: percentile(times, 50), unit: "ms", ...base },
    { name: `${name} p95`, value: percentile(times, 95), unit: "ms" },
  ];
}
