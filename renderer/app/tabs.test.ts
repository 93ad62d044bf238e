import { describe, expect, it } from "vitest";
import { tabRef } from "../../shared/contract.ts";
import { launchTarget, refToTab, tabKey, tabToRef, type Tab } from "./tabs.ts";

describe("tabs the desktop app remembers", () => {
  it("turn into contract-valid references and back", () => {
    const tabs: Tab[] = [
      { kind: "operation", key: tabKey.operation("petstore", "listPets"), api: "petstore", operationId: "listPets" },
      { kind: "program", key: tabKey.program("p1"), programId: "p1" },
      { kind: "run", key: tabKey.run("run_abc"), runId: "run_abc" },
      { kind: "api", key: tabKey.api("petstore"), api: "petstore" },
      { kind: "inbox", key: "inbox" },
    ];
    for (const tab of tabs) {
      const ref = tabToRef(tab);
      expect(tabRef.safeParse(ref).success, tab.key).toBe(true);
      expect(refToTab(ref)).toEqual(tab);
    }
  });
});

describe("the target a launch link put in the fragment", () => {
  it("reads #open=run/<id> and #open=inbox[/<id>], and nothing else", () => {
    expect(launchTarget("#open=run%2Frun_abc")).toEqual({ kind: "run", runId: "run_abc" });
    expect(launchTarget("#open=run/run_abc")).toEqual({ kind: "run", runId: "run_abc" });
    expect(launchTarget("#open=inbox%2F")).toEqual({ kind: "inbox" });
    expect(launchTarget("#open=inbox%2Frun_x")).toEqual({ kind: "inbox", runId: "run_x" });
    expect(launchTarget("#token=abc")).toBeUndefined();
    expect(launchTarget("#open=vault%2Fgithub")).toBeUndefined();
    expect(launchTarget("#open=run%2F")).toBeUndefined();
  });
});
