import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { openSession, type Session } from "./support/session.ts";

describe("runs history", () => {
  let s: Session;
  let firstRun = "";
  beforeAll(async () => {
    s = await openSession();
    const editor = s.wb.editor();
    await editor.setCode('const inv = await apis.petstore.getInventory({});\nconsole.log("inventory read");\nreturn inv.body;');
    await editor.run();
    await s.wb.console.waitForStatus("completed");
    firstRun = (await s.wb.console.runId.innerText()).trim();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lists runs and filters them", async () => {
    const history = await s.wb.openRuns();
    await history.rows.first().waitFor();
    expect(await history.rows.first().innerText()).toContain(firstRun);
    await history.filterStatus("failed");
    await expect.poll(() => history.rows.count()).toBe(0);
    await history.filterStatus("failed");
    await history.search("inventory read");
    await expect.poll(() => history.rows.count()).toBe(1);
    await screenshot(s.browser.page, "history");
  });

  it("reopens a run: program, calls, logs, result", async () => {
    const history = await s.wb.openRuns();
    await history.row(firstRun).click();
    const run = s.wb.runView();
    await run.id.filter({ hasText: firstRun }).waitFor();
    expect(await run.program.innerText()).toContain("getInventory");
    expect(await run.detail.calls.count()).toBe(1);
    expect(await run.detail.calls.first().innerText()).toContain("/store/inventory");
    expect((await (await run.detail.showLogs()).innerText())).toContain("inventory read");
    await screenshot(s.browser.page, "run-reopened");
  });

  it("replays it from the saved responses", async () => {
    const run = s.wb.runView();
    await run.replay();
    await expect.poll(async () => (await s.wb.console.runId.innerText()).trim()).not.toBe(firstRun);
    await s.wb.console.waitForStatus("completed");
    expect(await s.wb.console.calls.first().innerText()).toMatch(/GET[\s\S]*\/store\/inventory[\s\S]*200/);
    // The new run names the run it replayed.
    await s.wb.console.root.getByRole("button", { name: "Open run" }).click();
    const replay = s.wb.runView();
    await replay.root.getByText(`from ${firstRun}`).waitFor();
    await screenshot(s.browser.page, "run-replayed");
    await s.wb.tab(firstRun).click();
  });

  it("edits and re-runs it", async () => {
    const run = s.wb.runView();
    await run.editAndRerun();
    const editor = s.wb.editor();
    await editor.ready();
    expect(await editor.text()).toContain("getInventory");
    expect(await editor.root.innerText()).toContain(firstRun);
    await editor.setCode('const inv = await apis.petstore.getInventory({});\nreturn Object.keys(inv.body).length;');
    await editor.run();
    await s.wb.console.waitForStatus("completed");
    await screenshot(s.browser.page, "run-edited");
  });

  it("exports JSON and HAR", async () => {
    const history = await s.wb.openRuns();
    await history.search("");
    await history.row(firstRun).click();
    const run = s.wb.runView();
    expect(await run.export("JSON")).toMatch(/\.json$/);
    expect(await run.export("HAR")).toMatch(/\.har$/);
    expect(s.browser.pageErrors).toEqual([]);
  });
});
