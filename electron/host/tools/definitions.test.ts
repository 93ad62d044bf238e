import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_AGENT_LIMITS } from "../../../shared/limits.ts";
import { openTestBench, type TestBench } from "../test-support/workbench.ts";
import { CHARS_PER_TOKEN } from "./truncate.ts";
import { toolDefinitions } from "./definitions.ts";

let bench: TestBench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

describe("tool definitions as data", () => {
  it("lists four tools with object input schemas and bounded descriptions, renamed on request", async () => {
    bench = await openTestBench();
    const tools = await toolDefinitions(bench.workbench, { names: { execute: "run_reads" } });
    expect(tools.map((t) => t.name)).toEqual(["search_apis", "run_reads", "execute_api_mutations", "get_code_run"]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description.length / CHARS_PER_TOKEN).toBeLessThanOrEqual(1_500);
    }
    expect(tools[1]!.description).toContain("- t: Items 1.0, 4 operations");
    expect(tools[1]!.annotations.readOnlyHint).toBe(true);
    expect(tools[2]!.annotations.destructiveHint).toBe(true);
  });

  it("handlers run programs, cut results, and refuse calls without a program", async () => {
    bench = await openTestBench();
    const [search, execute, mutations, getRun] = await toolDefinitions(bench.workbench, { limits: () => ({ ...DEFAULT_AGENT_LIMITS, maxResultTokens: 300 }) });
    const context = { source: { kind: "mcp", client: "test-agent 1.0" } } as const;
    expect(await execute!.handler({}, context)).toEqual({ ok: false, message: 'execute_api_code needs {"code": "<an async arrow function>"}' });

    const found = await search!.handler({ code: "async () => specs.t.operations.map((o) => o.id)" }, context);
    expect(found).toMatchObject({ ok: true, failed: false, value: { result: ["listItems", "createItem", "deleteItem", "slow"] } });

    const big = await execute!.handler({ code: "async () => Array.from({ length: 500 }, (_, i) => ({ i, text: 'x'.repeat(50) }))" }, context);
    expect(big.ok && (big.value as { truncated?: string }).truncated).toMatch(/kept \d+ of 500 items/);

    const pending = await mutations!.handler({ code: "async () => (await apis.t.createItem({ body: { name: 'n' } })).status" }, context);
    expect(pending.ok && pending.envelope?.status).toBe("pending");
    const run = pending.ok ? pending.envelope!.run : "";
    expect(bench.workbench.store.getRun(run)?.source).toEqual({ kind: "mcp", client: "test-agent 1.0" });
    expect(await getRun!.handler({ run }, context)).toMatchObject({ ok: true, value: { run, status: "pending" } });
    expect(await getRun!.handler({ run: "run_nope" }, context)).toMatchObject({ ok: false });
  });
});
