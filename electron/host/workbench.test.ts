import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../cli.ts";
import type { CliIo } from "../cli/io.ts";
import { TEST_VAULT_KEY } from "./test-support/workbench.ts";
import { Workbench } from "./workbench.ts";

const open: Workbench[] = [];
afterEach(async () => {
  for (const wb of open.splice(0)) await wb.close();
});

function io(dataDir: string, stdin = ""): CliIo {
  return { stdout: () => {}, stderr: () => {}, readStdin: async () => stdin, env: { WORKBENCH_DATA_DIR: dataDir, WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, exit: () => {} };
}

describe("Workbench", () => {
  it("a first start registers the demo API with its token in the vault", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wb-first-"));
    const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (!opened.ok) throw new Error(opened.message);
    open.push(opened.workbench);
    expect(opened.workbench.registry.list().map((a) => a.name)).toEqual(["petstore"]);
    expect(opened.workbench.vault.list()).toEqual([{ name: "demo", allowApis: ["petstore"], fields: [{ name: "token" }] }]);
    const envelope = await opened.workbench.execute({ code: "async () => (await apis.petstore.createPet({ body: { name: 'Ok' } })).status", policy: "all", source: { kind: "cli" }, preApprovedBy: "test" });
    expect(envelope.result).toBe(201);
  });

  it("a long-lived host sees APIs and vault items another process adds, and says so on the bus", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wb-watch-"));
    const opened = Workbench.open({ dataDir, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
    if (!opened.ok) throw new Error(opened.message);
    const workbench = opened.workbench;
    open.push(workbench);
    workbench.startBackgroundWork();
    const apisChanged = workbench.bus.next((e): e is { type: "apis.changed" } => e.type === "apis.changed", 5_000);
    const spec = join(import.meta.dirname, "specs/fixtures/go-swagger-todos.yaml");
    expect(await main(["api", "add", "todo", spec, "--base-url", "http://127.0.0.1:9/api/v1"], io(dataDir))).toBe(0);
    await apisChanged;
    expect(workbench.registry.list().map((a) => a.name)).toEqual(["petstore", "todo"]);
    const vaultChanged = workbench.bus.next((e): e is { type: "vault.changed" } => e.type === "vault.changed", 5_000);
    expect(await main(["vault", "set", "todo/token", "--stdin"], io(dataDir, "a-secret-value"))).toBe(0);
    await vaultChanged;
    expect(workbench.vault.list().map((i) => i.name)).toContain("todo");
  });
});
