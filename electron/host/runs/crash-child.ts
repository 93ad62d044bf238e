/**
 * Spawned by crash-recovery.test.ts as a real `node` process: opens the store
 * in the data dir given as argv[2], starts a run, records a write as in flight
 * (as the proxy does just before sending), tells the parent the run id on
 * stdout, and then waits to be killed with SIGKILL, mid-call.
 */
import { CodeRunStore } from "./store.ts";

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: node crash-child.ts <dataDir>");

const { store } = CodeRunStore.open(dataDir);
const run = store.createRun({
  source: { kind: "cli" },
  tool: "execute",
  policy: "all",
  program: "async () => apis.petstore.createPet({ body: { name: 'Rex' } })",
  clock: Date.now(),
  seed: 7,
});
store.recordCall({
  runId: run.id,
  index: 0,
  api: "petstore",
  operation: "POST /pets",
  operationId: "createPet",
  arguments: { body: { name: "Rex" } },
  argumentsHash: "sha256-of-args",
  request: { method: "POST", url: "http://127.0.0.1:9/pets", headers: { "content-type": "application/json" }, body: '{"name":"Rex"}' },
  status: "in_flight",
  idempotencyKey: "idem-1",
  decision: "approved",
});
process.stdout.write(`ready ${run.id}\n`);
setInterval(() => {}, 60_000); // the "send" that never returns
