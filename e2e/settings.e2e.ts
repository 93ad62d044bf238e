import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectInfo } from "../shared/contract.ts";
import { screenshot } from "./support/browser.ts";
import { connectAgent, toolJson, type AgentHandle } from "./support/mcp.ts";
import { openSession, type Session } from "./support/session.ts";

describe("settings: limits for agents", () => {
  let s: Session;
  let agent: AgentHandle;
  beforeAll(async () => {
    // A flag of this serve overrides the saved compute time while it runs.
    s = await openSession({ serveArgs: ["--timeout-ms", "250"] });
    const info = await s.wb.channel<ConnectInfo>("connect.info");
    agent = await connectAgent(info.mcpUrl, info.token, "e2e-limits-agent", "1.0.0");
  });
  afterAll(async () => {
    await agent?.close();
    await s?.close();
  });

  it("shows the limits in effect and says which a flag of this process sets", async () => {
    const settings = await s.wb.openSettings();
    await settings.field("Memory").waitFor();
    expect(await settings.row("Memory").innerText()).toMatch(/128 MiB/);
    const compute = await settings.row("Compute time").innerText();
    expect(compute).toContain("250 ms");
    expect(compute).toContain("set by --timeout-ms 250 for this process");
  });

  it("refuses a value out of bounds before saving, naming the range", async () => {
    const settings = await s.wb.openSettings();
    await settings.set("Memory", "100000");
    expect(await settings.row("Memory").innerText()).toContain("Must be a whole number from 16 to 4,096 (MiB).");
    expect(await settings.field("Memory").getAttribute("aria-invalid")).toBe("true");
    expect(await settings.saveButton.isDisabled()).toBe(true);
    await screenshot(s.browser.page, "settings-invalid");
  });

  it("saves limits to the data directory, and an agent's next program runs under them", async () => {
    const settings = await s.wb.openSettings();
    await settings.set("Memory", "64");
    await settings.set("API calls", "2");
    await settings.save();
    await s.browser.page.getByText("Saved. Agents' next programs run under these limits.").waitFor();
    await expect.poll(async () => settings.root.getByTestId("effective-maxCalls").innerText()).toBe("2 calls");
    expect(JSON.parse(readFileSync(join(s.serve.dataDir, "settings.json"), "utf8"))).toEqual({ format: 1, agentLimits: { memoryMb: 64, maxCalls: 2 } });
    await screenshot(s.browser.page, "settings");

    const limited = toolJson(await agent.client.callTool({ name: "execute_api_code", arguments: { code: "for (let i = 0; i < 3; i++) await apis.petstore.listPets({}); return 'done'" } }));
    expect(limited).toMatchObject({ status: "failed", error: { reason: "CallLimit" } });
    const spun = toolJson(await agent.client.callTool({ name: "execute_api_code", arguments: { code: "while (true) {}" } }));
    expect(spun).toMatchObject({ status: "failed", error: { reason: "Timeout", message: "the program used more than 250 ms of compute time" } });
    expect(s.browser.pageErrors).toEqual([]);
  });
});
