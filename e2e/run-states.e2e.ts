/**
 * The app words a run by its state, not by the envelope it last stored: an
 * interrupted run that had waited for a decision shows no approval prompt, a
 * cancelled run says so, a call answered after its run ended is marked.
 * Runs are made with the real CLI; the interrupted one is then left in the
 * store as a process killed after an approval leaves it (which the CLI fault
 * tests produce with a real kill -9).
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/browser.ts";
import { freshDataDir, workbenchCli } from "./support/serve.ts";
import { openSession, type Session } from "./support/session.ts";

describe("run states in the app", () => {
  let s: Session;
  const runs = { interrupted: "", cancelled: "", late: "" };

  beforeAll(async () => {
    const dataDir = freshDataDir();
    const program = join(dataDir, "write.js");
    writeFileSync(program, "async () => { const r = await apis.petstore.listPets({ limit: 1 }); return (await apis.petstore.createPet({ body: { name: 'Nova' } })).status }");
    const run = () => JSON.parse(workbenchCli(["run", "--code", program, "--policy", "all", "--data-dir", dataDir]).stdout) as { run: string; status: string };
    runs.interrupted = run().run;
    runs.cancelled = run().run;
    expect(workbenchCli(["runs", "cancel", runs.cancelled, "--data-dir", dataDir]).status).toBe(0);
    writeFileSync(program, "async () => (await apis.petstore.listPets({ limit: 1 })).status");
    runs.late = run().run;
    // As a process killed after an approval leaves the store: the decision taken, the write not sent, the envelope still the pending one.
    const db = new DatabaseSync(join(dataDir, "runs.sqlite"));
    db.prepare("DELETE FROM pending_decisions WHERE run_id = ?").run(runs.interrupted);
    db.prepare("UPDATE calls SET decision = 'approved', decided_by = 'cli' WHERE run_id = ? AND idx = 1").run(runs.interrupted);
    db.prepare("UPDATE runs SET status = 'interrupted' WHERE id = ?").run(runs.interrupted);
    db.prepare("UPDATE calls SET ended_after_run = 1 WHERE run_id = ?").run(runs.late);
    db.close();
    s = await openSession({ dataDir });
  });
  afterAll(async () => {
    await s?.close();
  });

  async function open(runId: string) {
    const history = await s.wb.openRuns();
    await history.row(runId).click();
    const view = s.wb.runView();
    await view.id.filter({ hasText: runId }).waitFor();
    return view;
  }

  it("an interrupted run that had waited for a decision offers no approval, and its write reads not sent", async () => {
    const view = await open(runs.interrupted);
    const banner = view.root.locator(".run-banner");
    await banner.first().waitFor();
    expect(await banner.allInnerTexts()).toEqual([expect.stringMatching(/^Interrupted\s+The workbench stopped while this run was running\. Calls marked unknown may have reached the API: verify before retrying\. Nothing is re-sent by itself\.$/)]);
    expect(await view.root.getByText(/Waiting for approval/).count()).toBe(0);
    expect(await view.root.getByRole("button", { name: "Review in the inbox" }).count()).toBe(0);
    expect(await view.root.getByRole("button", { name: "Cancel run" }).count()).toBe(0);
    expect(await view.detail.calls.nth(1).locator(".call-tags").innerText()).toMatch(/^not sent\s+approved$/);
    await screenshot(s.browser.page, "run-interrupted");
  });

  it("a cancelled run says who cancelled it and offers nothing to decide", async () => {
    const view = await open(runs.cancelled);
    await view.root.locator(".run-banner").first().waitFor();
    expect(await view.root.locator(".run-banner").allInnerTexts()).toEqual(["Cancelled cancelled by cli while waiting for a decision"]);
    expect(await view.root.getByRole("button", { name: "Cancel run" }).count()).toBe(0);
  });

  it("a call answered after its run ended is marked so", async () => {
    const view = await open(runs.late);
    const tags = view.detail.calls.first().locator(".call-tags");
    await tags.waitFor();
    expect(await tags.innerText()).toMatch(/^200\s+after the run ended$/);
    const detail = await view.detail.expandCall(0);
    expect(await detail.innerText()).toContain("Answered after the run ended: the program never saw this answer.");
  });
});
