/**
 * An approval binds to what the person saw (issue #10, class 6). A write waits
 * with its request shown; before the person decides, something changes the
 * request that would be sent (the API's base URL, its credential reference, the
 * spec's path, a header setting). Approving must not send the changed request:
 * the call asks again, saying what changed, and is sent only once a person
 * approved what will really go. Approving from another process (the CLI beside
 * the app) binds the same way, and the demo API, whose port changes per
 * process, is not asked again for the port alone.
 */
import { main } from "../../cli.ts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Envelope } from "../../../shared/envelope.ts";
import { startRecordingServer, type RecordingServer } from "../test-support/recording-server.ts";
import { TEST_VAULT_KEY } from "../test-support/workbench.ts";
import { Workbench } from "../workbench.ts";
import { assertNoSecret, openAttackBench, VICTIM_SPEC, type AttackBench } from "./harness.ts";

let bench: AttackBench;
let elsewhere: RecordingServer;
beforeAll(async () => {
  bench = await openAttackBench(main);
  elsewhere = await startRecordingServer();
});
afterAll(async () => {
  await elsewhere.close();
  await bench.close();
});
beforeEach(() => {
  bench.configure("x", { baseUrl: `${bench.victim.url}/api`, auth: { scheme: "sess", credential: "vault:x/sess" } });
  bench.workbench.registry.update("x", { config: { ...bench.workbench.registry.entry("x")!.config, autoIdempotencyHeader: undefined } });
});

const DELETE_7 = `async () => (await apis.x.deleteThing({ id: "7" })).status`;

async function pendingDelete(): Promise<Envelope> {
  const envelope = await bench.run(DELETE_7, { approveWrites: false });
  expect(envelope.status).toBe("pending");
  return envelope;
}

async function approve(runId: string, workbench: Workbench = bench.workbench): Promise<Envelope> {
  const decided = await workbench.decide(runId, "approve", "person");
  if (!decided.ok) throw new Error(decided.message);
  return decided.envelope;
}

function deletesAt(server: RecordingServer): string[] {
  return server.requests.filter((r) => r.method === "DELETE").map((r) => r.url);
}

describe("class 6: an approval binds to the request shown", () => {
  it("the base URL moved to another origin after the request was shown: nothing goes there until a person approves it there", async () => {
    const before = deletesAt(bench.victim).length;
    const pending = await pendingDelete();
    expect(pending.pending?.url).toBe(`${bench.victim.url}/api/things/7`);
    bench.configure("x", { baseUrl: `${elsewhere.url}/api` });

    const again = await approve(pending.run);
    expect(again.status).toBe("pending");
    expect(again.pending?.url).toBe(`${elsewhere.url}/api/things/7`);
    expect(again.pending?.changes).toEqual([`the destination changed from ${bench.victim.url} to ${elsewhere.url}`]);
    expect(deletesAt(elsewhere)).toEqual([]);
    expect(deletesAt(bench.victim).length).toBe(before);
    // The inbox shows the new request and why it asks again.
    const inbox = bench.workbench.store.listPendingDecisions().find((d) => d.runId === pending.run)!;
    expect(inbox.changes).toEqual(again.pending?.changes);

    // Approved where it really goes, it is sent there, once.
    const done = await approve(pending.run);
    expect(done.status).toBe("completed");
    expect(deletesAt(elsewhere)).toEqual(["/api/things/7"]);
    expect(deletesAt(bench.victim).length).toBe(before);
    assertNoSecret(await bench.exposure(pending.run));
  });

  it("the credential reference changed after the request was shown: asks again, naming the header", async () => {
    const pending = await pendingDelete();
    expect(pending.pending && JSON.stringify(bench.workbench.store.getPendingDecision(pending.run)?.request.headers)).toContain("sess=⟦vault:x/sess⟧");
    bench.configure("x", { auth: { scheme: "sess", credential: "vault:x/token" } });
    const again = await approve(pending.run);
    expect(again.status).toBe("pending");
    expect(again.pending?.changes).toEqual(["header cookie changed from sess=⟦vault:x/sess⟧ to sess=⟦vault:x/token⟧"]);
    await bench.workbench.decide(pending.run, "deny", "person", "not that credential");
    assertNoSecret(await bench.exposure(pending.run));
  });

  it("the spec changed the operation's path after the request was shown: asks again, naming the path", async () => {
    const before = deletesAt(bench.victim).length;
    const pending = await pendingDelete();
    const moved = JSON.parse(JSON.stringify(VICTIM_SPEC).replace('"/things/{id}"', '"/admin/{id}"')) as object;
    const { result } = bench.workbench.registry.store.ingest(JSON.stringify(moved));
    if (!result.ok) throw new Error(result.error.message);
    expect(bench.workbench.registry.update("x", { artifact: result.artifact }).ok).toBe(true);
    try {
      const again = await approve(pending.run);
      expect(again.status).toBe("pending");
      expect(again.pending?.changes).toEqual(["the path changed from /api/things/7 to /api/admin/7"]);
      expect(deletesAt(bench.victim).length).toBe(before);
      await bench.workbench.decide(pending.run, "deny", "person");
    } finally {
      const { result: original } = bench.workbench.registry.store.ingest(JSON.stringify(VICTIM_SPEC));
      if (original.ok) bench.workbench.registry.update("x", { artifact: original.artifact });
    }
  });

  it("a header the person did not see (an idempotency header turned on since) asks again", async () => {
    const pending = await pendingDelete();
    bench.configure("x", { autoIdempotencyHeader: "Idempotency-Key" });
    const again = await approve(pending.run);
    expect(again.status).toBe("pending");
    expect(again.pending?.changes?.[0]).toMatch(/^header idempotency-key was added: [0-9a-f-]{36}$/);
    const done = await approve(pending.run);
    expect(done.status).toBe("completed");
    // Sent with the key the person saw the second time.
    const sent = bench.victim.requests.filter((r) => r.method === "DELETE").at(-1)!;
    expect(again.pending?.changes?.[0]).toContain(String(sent.headers["idempotency-key"]));
  });

  it("an unchanged request approved from another process (the CLI beside the app) is sent once, without asking again", async () => {
    const before = deletesAt(bench.victim).length;
    const pending = await pendingDelete();
    const other = Workbench.open({ dataDir: bench.dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (!other.ok) throw new Error(other.message);
    try {
      const done = await approve(pending.run, other.workbench);
      expect(done.status).toBe("completed");
      expect(deletesAt(bench.victim).length).toBe(before + 1);
    } finally {
      await other.workbench.close();
    }
  });

  it("the demo API, whose server port changes with each process, is approved from another process without asking again", async () => {
    const pending = await bench.run(`async () => (await apis.petstore.createPet({ body: { name: "Nova" } })).status`, { approveWrites: false });
    expect(pending.status).toBe("pending");
    const other = Workbench.open({ dataDir: bench.dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (!other.ok) throw new Error(other.message);
    try {
      const done = await approve(pending.run, other.workbench);
      expect(done.status, JSON.stringify(done.pending ?? done.error)).toBe("completed");
      expect(done.result).toBe(201);
    } finally {
      await other.workbench.close();
    }
  });
});
