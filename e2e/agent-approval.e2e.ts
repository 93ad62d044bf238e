import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectInfo } from "../shared/contract.ts";
import { startRecordingServer } from "../electron/host/test-support/recording-server.ts";
import { screenshot } from "./support/browser.ts";
import { connectAgent, toolJson, type AgentHandle } from "./support/mcp.ts";
import { openSession, type Session } from "./support/session.ts";

const WRITE_TOOL = "execute_api_mutations";
const GET_RUN = "get_code_run";

describe("an agent's write waits for a person", () => {
  let s: Session;
  let agent: AgentHandle;
  beforeAll(async () => {
    s = await openSession();
    const info = await s.wb.channel<ConnectInfo>("connect.info");
    agent = await connectAgent(info.mcpUrl, info.token, "e2e-agent", "1.0.0");
  });
  afterAll(async () => {
    await agent?.close();
    await s?.close();
  });

  it("the connect view shows the endpoint and client snippets", async () => {
    const connect = await s.wb.openConnect();
    expect(await connect.mcpUrl.innerText()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(await connect.snippet("Claude Code")).toContain("claude mcp add");
    await screenshot(s.browser.page, "connect");
  });

  it("approve: the inbox shows the exact request, the run completes and the agent is notified", async () => {
    const tools = (await agent.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining([WRITE_TOOL, GET_RUN]));

    const code = ['const pet = await apis.petstore.createPet({ body: { name: "Agent Pet", status: "available" } });', "return pet.body;"].join("\n");
    const pending = toolJson(await agent.client.callTool({ name: WRITE_TOOL, arguments: { code } }));
    expect(pending.status).toBe("pending");
    const runId = String(pending.run);

    await expect.poll(() => s.wb.inboxCount()).toBe(1);
    const inbox = await s.wb.openInbox();
    const card = inbox.card("/pets");
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain("POST");
    expect(text).toMatch(/http:\/\/127\.0\.0\.1:\d+\/pets/);
    expect(text).toContain("agent e2e-agent");
    expect(text).toContain("Agent Pet");
    expect(text).toMatch(/expires in \d+:\d\d/);
    expect(await card.locator(".listing-hot").innerText()).toContain("createPet");
    await screenshot(s.browser.page, "inbox-agent-write");

    await inbox.approveWithKeyboard(card);
    await agent.waitForNotification(runId);
    await inbox.empty.waitFor();
    await expect.poll(() => s.wb.inboxCount()).toBe(0);

    const final = toolJson(await agent.client.callTool({ name: GET_RUN, arguments: { run: runId } }));
    expect(final.status).toBe("completed");
    expect((final.result as { name?: string }).name).toBe("Agent Pet");
    const calls = final.calls as { decision?: string; status: unknown }[];
    expect(calls[0]).toMatchObject({ status: 201, decision: "approved" });
    await screenshot(s.browser.page, "inbox-after-approve");
  });

  it("deny: the program receives CallDenied with the person's message", async () => {
    const code = 'await apis.petstore.deletePet({ petId: 1 });\nreturn "deleted";';
    const pending = toolJson(await agent.client.callTool({ name: WRITE_TOOL, arguments: { code } }));
    expect(pending.status).toBe("pending");
    const runId = String(pending.run);

    const inbox = await s.wb.openInbox();
    const card = inbox.card("/pets/");
    await card.waitFor();
    expect(await card.innerText()).toContain("DELETE");
    await inbox.deny(card, "Not this one, Rex stays.");
    await agent.waitForNotification(runId);

    const final = toolJson(await agent.client.callTool({ name: GET_RUN, arguments: { run: runId } }));
    expect(final.status).toBe("failed");
    expect(JSON.stringify(final.error)).toContain("CallDenied");
    expect(JSON.stringify(final)).toContain("Rex stays");
    const calls = final.calls as { decision?: string }[];
    expect(calls[0]?.decision).toBe("denied");

    // The run is in the history as the agent's, with the denied call.
    const history = await s.wb.openRuns();
    await history.filterSource("mcp");
    await expect.poll(() => history.rows.count()).toBe(2);
    await history.rows.filter({ hasText: runId }).click();
    const run = s.wb.runView();
    await run.detail.calls.first().waitFor();
    expect(await run.detail.calls.first().innerText()).toContain("denied");
    await screenshot(s.browser.page, "run-denied");
    expect(s.browser.pageErrors).toEqual([]);
  });

  it("a plan: three creations and a delete by the first one's id are one decision, shown write by write with the dependency", async () => {
    const code = [
      'const a = await apis.petstore.createPet({ body: { name: "Plan A", status: "available" } });',
      'const b = await apis.petstore.createPet({ body: { name: "Plan B", status: "available" } });',
      'const c = await apis.petstore.createPet({ body: { name: "Plan C", status: "available" } });',
      "await apis.petstore.deletePet({ petId: a.body.id });",
      "return [a.body.id, b.body.id, c.body.id];",
    ].join("\n");
    const pending = toolJson(await agent.client.callTool({ name: WRITE_TOOL, arguments: { code } }));
    expect(pending.status).toBe("pending");
    expect((pending.pending as { plan: { writes: number } }).plan.writes).toBe(4);
    const runId = String(pending.run);

    const inbox = await s.wb.openInbox();
    const card = inbox.card(/Plan: 4 writes/);
    await card.waitFor();
    const rows = card.locator(".plan-write");
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.nth(0).innerText()).toMatch(/POST\s+http:\/\/127\.0\.0\.1:\d+\/pets[\s\S]*Plan A/);
    expect(await rows.nth(3).innerText()).toMatch(/DELETE\s+http:\/\/127\.0\.0\.1:\d+\/pets\/\d+/);
    expect(await rows.nth(3).locator(".plan-write-dep").innerText()).toMatch(/petId ← from write 1's response \(POST \/pets, body\.id\)/);
    await screenshot(s.browser.page, "inbox-plan");

    await card.getByRole("button", { name: /^Approve all 4 writes/ }).click();
    await agent.waitForNotification(runId);
    const final = toolJson(await agent.client.callTool({ name: GET_RUN, arguments: { run: runId } }));
    expect(final.status).toBe("completed");
    const ids = final.result as number[];
    const calls = final.calls as { operation: string; status: unknown; decision?: string }[];
    expect(calls.map((c) => `${c.operation} ${String(c.status)}`)).toEqual(["POST /pets 201", "POST /pets 201", "POST /pets 201", "DELETE /pets/{petId} 204"]);
    // The delete went to the real id the first creation returned.
    const gone = toolJson(await agent.client.callTool({ name: "execute_api_code", arguments: { code: `return (await apis.petstore.getPet({ petId: ${ids[0]} })).status;` } }));
    expect(gone.result).toBe(404);
    expect(s.browser.pageErrors).toEqual([]);
  });

  it("asked again: the API's base URL moved after the request was shown, so approving it shows the new request and what changed", async () => {
    const elsewhere = await startRecordingServer();
    try {
      const code = 'return (await apis.petstore.createPet({ body: { name: "Moved" } })).status;';
      const pending = toolJson(await agent.client.callTool({ name: WRITE_TOOL, arguments: { code } }));
      expect(pending.status).toBe("pending");
      const runId = String(pending.run);
      const shownUrl = String((pending.pending as { url: string }).url);

      // Someone (a script, another window) points the API elsewhere before the person decides.
      const apis = await s.wb.channel<{ name: string; config: Record<string, unknown> }[]>("apis.list");
      const petstore = apis.find((a) => a.name === "petstore")!;
      await s.wb.channel("apis.update", { name: "petstore", config: { ...petstore.config, baseUrl: elsewhere.url } });

      const inbox = await s.wb.openInbox();
      const card = inbox.card("/pets");
      await card.waitFor();
      await inbox.approveWithKeyboard(card);
      // The same call is back, with the request as it would now go and why it asks again; nothing was sent.
      const again = inbox.card("/pets");
      await again.locator(".decision-changes").waitFor();
      const text = await again.innerText();
      expect(text).toContain("Asked again");
      expect(text).toContain(`the destination changed from ${new URL(shownUrl).origin} to ${elsewhere.url}`);
      expect(text).toContain(`${elsewhere.url}/pets`);
      expect(elsewhere.requests).toHaveLength(0);
      await screenshot(s.browser.page, "inbox-asked-again");

      await inbox.deny(again, "Not there.");
      await agent.waitForNotification(runId);
      expect(elsewhere.requests).toHaveLength(0);
      await s.wb.channel("apis.update", { name: "petstore", config: petstore.config });
      expect(s.browser.pageErrors).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });
});
