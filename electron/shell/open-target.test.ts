import { describe, expect, it } from "vitest";
import { openLink, openLinkInArgv, parseOpenLink } from "./open-target.ts";

describe("codemode-workbench:// links", () => {
  it("opens a run, or the inbox (at a run)", () => {
    expect(parseOpenLink("codemode-workbench://run/run_34dw8UaDvvrT")).toEqual({ kind: "run", runId: "run_34dw8UaDvvrT" });
    expect(parseOpenLink("codemode-workbench://run/run_34dw8UaDvvrT/")).toEqual({ kind: "run", runId: "run_34dw8UaDvvrT" });
    expect(parseOpenLink("codemode-workbench://inbox")).toEqual({ kind: "inbox" });
    expect(parseOpenLink("codemode-workbench://inbox/run_a1")).toEqual({ kind: "inbox", runId: "run_a1" });
    for (const target of [{ kind: "run", runId: "run_x" }, { kind: "inbox" }, { kind: "inbox", runId: "run_y" }] as const) expect(parseOpenLink(openLink(target))).toEqual(target);
  });

  it("refuses anything else a web page could put in a link", () => {
    for (const link of [
      "codemode-workbench://run/",
      "codemode-workbench://run/../../etc/passwd",
      "codemode-workbench://run/%2e%2e",
      "codemode-workbench://run/run_x/extra",
      "codemode-workbench://run/run_x?delete=1",
      "codemode-workbench://run/run_x#frag",
      "codemode-workbench://vault/github",
      "codemode-workbench://run/not-a-run",
      "https://run/run_x",
      "not a url",
    ]) {
      expect(parseOpenLink(link), link).toBeUndefined();
    }
  });

  it("finds the link the OS appended to a command line", () => {
    expect(openLinkInArgv(["/usr/bin/codemode-workbench", "--data-dir", "/d", "codemode-workbench://run/run_q"])).toEqual({ kind: "run", runId: "run_q" });
    expect(openLinkInArgv(["/usr/bin/codemode-workbench", "codemode-workbench://bogus", "codemode-workbench://inbox"])).toEqual({ kind: "inbox" });
    expect(openLinkInArgv(["/usr/bin/codemode-workbench", "--data-dir", "/d"])).toBeUndefined();
  });
});
