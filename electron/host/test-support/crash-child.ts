/**
 * Child process for the kill -9 test: opens the workbench of the data
 * directory given as argv[2] and runs a program whose write the upstream never
 * answers. The parent kills it with SIGKILL while the write is in flight.
 */
import { Workbench } from "../workbench.ts";
import { TEST_VAULT_KEY } from "./workbench.ts";

const opened = Workbench.open({ dataDir: process.argv[2]!, env: { WORKBENCH_VAULT_KEY: TEST_VAULT_KEY }, sandboxSize: 1 });
if (!opened.ok) throw new Error(opened.message);
process.stdout.write("ready\n");
await opened.workbench.execute({
  code: `async () => (await apis.t.createItem({ body: { name: "once" } })).status`,
  policy: "all",
  source: { kind: "cli" },
  preApprovedBy: "crash test",
});
process.stdout.write("finished (the test should have killed me)\n");
