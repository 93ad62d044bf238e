import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeRunStore } from "./store.ts";
import { searchTerms } from "./list-query.ts";
import { sampleCall, sampleRun, steppingClock, tempDataDir } from "./test-support.ts";

let data: ReturnType<typeof tempDataDir>;
let store: CodeRunStore;

beforeEach(() => {
  data = tempDataDir();
  store = CodeRunStore.open(data.dir, { now: steppingClock().now }).store;
});
afterEach(() => {
  store.close();
  data.remove();
});

/** Five runs, oldest first, with different statuses, sources, APIs, programs and logs. */
function seed(): string[] {
  const specs = [
    { source: { kind: "cli" as const }, status: "completed" as const, api: "petstore", op: ["GET /pets", "listPets"], program: "// count the dogs\nreturn 1", logs: ["found 3 dogs"] },
    { source: { kind: "mcp" as const, client: "cursor 1" }, status: "failed" as const, api: "github", op: ["POST /repos/{owner}/{repo}/issues", "issues/create"], program: "// open an issue", logs: [] },
    { source: { kind: "ui" as const }, status: "pending" as const, api: "petstore", op: ["POST /pets", "createPet"], program: "// add a cat", logs: ["about to write"] },
    { source: { kind: "mcp" as const, client: "claude-code 2" }, status: "completed" as const, api: "github", op: ["GET /user", "users/get-authenticated"], program: "// who am I\nconst ü = 1", logs: ["Inventory OK"] },
    { source: { kind: "cli" as const }, status: "running" as const, api: "weather", op: ["GET /forecast", "getForecast"], program: "// rain in Oslo?", logs: [] },
  ];
  return specs.map((s) => {
    const run = store.createRun(sampleRun({ source: s.source, program: s.program }));
    store.recordCall(sampleCall(run.id, 0, { api: s.api, operation: s.op[0]!, operationId: s.op[1]!, status: 200 }));
    store.updateRun(run.id, { status: s.status, logs: s.logs });
    return run.id;
  });
}

const ids = (filter: Parameters<CodeRunStore["listRuns"]>[0]) => store.listRuns(filter).map((r) => r.id);

describe("listRuns", () => {
  it("lists newest first with a summary of each run", () => {
    const [r0, r1, r2, r3, r4] = seed();
    expect(ids({})).toEqual([r4, r3, r2, r1, r0]);
    expect(store.listRuns({})[1]).toMatchObject({
      id: r3,
      source: { kind: "mcp", client: "claude-code 2" },
      status: "completed",
      apis: ["github"],
      callCount: 1,
      title: "// who am I",
    });
  });

  it("gives one run's summary by id, the same as its list row", () => {
    const [r0, r1] = seed() as [string, string];
    expect(store.getRunSummary(r0)).toEqual(store.listRuns({}).find((r) => r.id === r0));
    expect(store.getRunSummary(r1)!.id).toBe(r1);
    expect(store.getRunSummary("run_missing")).toBeUndefined();
  });

  it("filters by status, source and API, alone and together", () => {
    const [r0, r1, r2, r3] = seed();
    expect(ids({ status: ["completed"] })).toEqual([r3, r0]);
    expect(ids({ status: ["failed", "pending"] })).toEqual([r2, r1]);
    expect(ids({ source: "mcp" })).toEqual([r3, r1]);
    expect(ids({ api: "petstore" })).toEqual([r2, r0]);
    expect(ids({ api: "github", status: ["completed"], source: "mcp" })).toEqual([r3]);
    expect(ids({ api: "nothing" })).toEqual([]);
  });

  it("finds text in programs, logs and operation names, as substrings, case-insensitively", () => {
    const [r0, r1, r2, r3, r4] = seed();
    expect(ids({ text: "dogs" })).toEqual([r0]); // program and logs
    expect(ids({ text: "INVENTORY" })).toEqual([r3]); // logs, other case
    expect(ids({ text: "createP" })).toEqual([r2]); // inside an operation id
    expect(ids({ text: "/repos/" })).toEqual([r1]); // inside an operation path
    expect(ids({ text: "Oslo" })).toEqual([r4]);
    expect(ids({ text: "ü" })).toEqual([r3]); // one character: the LIKE fallback
    expect(ids({ text: "no such words" })).toEqual([]);
  });

  it("needs every term, and keeps a quoted phrase together", () => {
    const [r0, , r2] = seed();
    expect(ids({ text: "cat createPet" })).toEqual([r2]);
    expect(ids({ text: "dogs createPet" })).toEqual([]);
    expect(ids({ text: '"found 3 dogs"' })).toEqual([r0]);
    expect(ids({ text: '"3 found"' })).toEqual([]);
    expect(ids({ text: "3 dogs" })).toEqual([r0]); // a two-letter-or-less term mixed with an indexed one
  });

  it("treats search syntax in the text as plain characters", () => {
    seed();
    for (const text of ['"', 'a"b', "NEAR(", "*", "a OR b", "%", "_", "\\"]) expect(() => store.listRuns({ text })).not.toThrow();
    expect(ids({ text: "%" })).toEqual([]);
  });

  it("pages with a keyset cursor: no run twice, none missed, even with equal creation times", () => {
    store.close();
    const fixed = new Date(Date.UTC(2025, 5, 1));
    store = CodeRunStore.open(data.dir, { now: () => fixed }).store;
    const created = Array.from({ length: 23 }, () => store.createRun(sampleRun()).id);
    const seen: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 10; page++) {
      const rows = store.listRuns({ limit: 5, ...(before ? { before } : {}) });
      if (rows.length === 0) break;
      seen.push(...rows.map((r) => r.id));
      before = rows[rows.length - 1]!.id;
    }
    expect(seen).toEqual([...created].reverse());
    expect(store.listRuns({ before: "run_unknown" })).toEqual([]);
  });

  it("caps and defaults the page size", () => {
    for (let i = 0; i < 60; i++) store.createRun(sampleRun());
    expect(store.listRuns({})).toHaveLength(50);
    expect(store.listRuns({ limit: 0 })).toHaveLength(1);
    expect(store.listRuns({ limit: 7 })).toHaveLength(7);
  });

  it("keeps the text index in step when calls are discarded", () => {
    const run = store.createRun(sampleRun({ program: "// plain" }));
    store.recordCall(sampleCall(run.id, 0, { operation: "DELETE /pets/{id}", operationId: "deletePet", status: "pending" }));
    expect(ids({ text: "deletePet" })).toEqual([run.id]);
    store.deleteCallsFrom(run.id, 0);
    expect(ids({ text: "deletePet" })).toEqual([]);
  });
});

describe("searchTerms", () => {
  it("splits words and keeps quoted phrases", () => {
    expect(searchTerms('  list "found 3 dogs" pets ')).toEqual(["list", "found 3 dogs", "pets"]);
    expect(searchTerms('""')).toEqual([]);
  });
});
