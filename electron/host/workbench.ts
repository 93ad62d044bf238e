/**
 * The composition root of the host: one object that owns the registry, the
 * vault, the run store, the sandbox pool, the event bus and the run engine for
 * a data directory. The CLI, `workbench serve` and the Electron app all open
 * one of these; nothing else constructs the parts.
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { AgentLimitsSource } from "./agent-limits.ts";
import { ensureDataDir } from "./data-dir.ts";
import { ApiDirectory } from "./api-directory.ts";
import { EventBus } from "./events.ts";
import { HostLog } from "./common/host-log.ts";
import { SignIns } from "./oauth/sign-ins.ts";
import { ConfiguredCredentialResolver, type CredentialResolver } from "./proxy/credentials.ts";
import type { ProxyDeps } from "./proxy/pipeline.ts";
import { RunEngine, type ExecuteRequest } from "./runs/engine.ts";
import { CodeRunStore, describeRecovery } from "./runs/store.ts";
import { SandboxPool } from "./sandbox/pool.ts";
import type { RunLimits } from "./sandbox/types.ts";
import { DEMO_API_NAME, ensureDemoApi } from "./specs/demo-api.ts";
import { DemoUpstream } from "./specs/demo-upstream.ts";
import { ApiRegistry } from "./specs/registry.ts";
import { executePrelude } from "./tools/execute-prelude.ts";
import { runSearch } from "./tools/search.ts";
import { Redactor } from "./vault/redact.ts";
import { vaultGlobal } from "./vault/references.ts";
import { Vault } from "./vault/vault.ts";
import type { Envelope } from "../../shared/envelope.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { AgentLimitsPatch } from "../../shared/limits.ts";
import type { ApprovalMode, RunSource } from "../../shared/runs.ts";
import type { SecretCipher } from "./vault/cipher.ts";

/** The demo server's token, stored in the vault on first start so the demo API works offline. */
export const DEMO_TOKEN = "demo-token";

export interface WorkbenchOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** What OAuth sign-ins and token exchanges talk to the authorization server with (tests); calls to APIs always go on the wire. */
  fetch?: typeof fetch;
  /** Told every line the host logs, redacted (the CLI prints them under WORKBENCH_DEBUG); all go to logs/host.log too. */
  log?: (message: string) => void;
  /** Sandbox worker threads (default min(4, CPUs)). */
  sandboxSize?: number;
  limits?: Partial<RunLimits>;
  decisionTtlMs?: number;
  now?: () => number;
  /** The Electron app plugs safeStorage in here. */
  cipher?: SecretCipher;
  acceptPlaintextVault?: boolean;
  resolver?: CredentialResolver;
  /** Agent limits this process was started with (`serve --memory-mb`): they win over the saved settings. */
  agentLimitOverrides?: AgentLimitsPatch;
  /** How this face approves writes unless a run says (`--approvals per-call`): default a plan of the program's writes. */
  approvals?: ApprovalMode;
}

export type OpenResult = { ok: true; workbench: Workbench; notices: string[] } | { ok: false; message: string };

export class Workbench {
  readonly dataDir: string;
  readonly registry: ApiRegistry;
  readonly vault: Vault;
  readonly store: CodeRunStore;
  readonly sandbox: SandboxPool;
  readonly bus: EventBus;
  readonly engine: RunEngine;
  readonly apis: ApiDirectory;
  readonly demo: DemoUpstream;
  /** The limits agent programs run under: defaults, saved settings, this process's flags. */
  readonly agentLimits: AgentLimitsSource;
  readonly signIns: SignIns;
  readonly #log: (message: string) => void;
  readonly #limits: Partial<RunLimits>;
  readonly #approvals: ApprovalMode;
  readonly #unsubscribe: (() => void)[] = [];
  #watcher: FSWatcher | undefined;

  private constructor(parts: {
    dataDir: string; registry: ApiRegistry; vault: Vault; store: CodeRunStore; sandbox: SandboxPool; bus: EventBus;
    demo: DemoUpstream; apis: ApiDirectory; engine: RunEngine; log: (message: string) => void; limits: Partial<RunLimits>; agentLimits: AgentLimitsSource; signIns: SignIns; approvals: ApprovalMode;
  }) {
    this.signIns = parts.signIns;
    this.dataDir = parts.dataDir;
    this.registry = parts.registry;
    this.vault = parts.vault;
    this.store = parts.store;
    this.sandbox = parts.sandbox;
    this.bus = parts.bus;
    this.demo = parts.demo;
    this.apis = parts.apis;
    this.engine = parts.engine;
    this.agentLimits = parts.agentLimits;
    this.#log = parts.log;
    this.#limits = parts.limits;
    this.#approvals = parts.approvals;
    this.#unsubscribe.push(
      this.registry.onChange(() => this.bus.publish({ type: "apis.changed" })),
      this.vault.onChange(() => this.bus.publish({ type: "vault.changed" })),
    );
  }

  static open(options: WorkbenchOptions): OpenResult {
    const notices: string[] = [];
    const dataDir = ensureDataDir(options.dataDir);
    const vaultIsNew = !existsSync(join(dataDir, "vault.json"));
    const opened = Vault.open(dataDir, { env: options.env ?? process.env, ...(options.cipher ? { cipher: options.cipher } : {}), ...(options.acceptPlaintextVault ? { acceptPlaintext: true } : {}) });
    if (!opened.ok) return { ok: false, message: `the vault cannot be opened: ${opened.message}` };
    const vault = opened.vault;
    notices.push(...vault.notices());
    const registry = ApiRegistry.open(dataDir);
    // People's OAuth2 sign-ins: tokens in the vault, attached to calls by the resolver, refreshed as they expire.
    const signIns = new SignIns({
      vault,
      registry,
      target: async (name) => (await apis.refresh()).get(name),
      publish: (event) => bus.publish(event),
      log: (message) => log(message),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const resolver = options.resolver ?? new ConfiguredCredentialResolver({ vault, signIns, ...(options.fetch ? { fetch: options.fetch } : {}), log: (message) => log(message) });
    // Every line the host logs is redacted with what a run's redactor would know, then kept in logs/host.log.
    const knownSecrets = () => [...vault.secrets(), ...(resolver.knownSecrets?.() ?? [])];
    const hostLog = new HostLog({ dataDir, redactor: () => new Redactor(knownSecrets()), ...(options.log ? { echo: options.log } : {}) });
    const log = (message: string) => hostLog.write(message);

    notices.push(...registry.notices());
    const demoAdded = ensureDemoApi(registry);
    if (!demoAdded.ok) notices.push(demoAdded.error.message);
    else if (vaultIsNew && registry.entry(DEMO_API_NAME)?.source.kind === "demo") {
      // The demo server's token, so the demo API's writes work offline from the first start.
      vault.set("demo", "token", DEMO_TOKEN, { allowApis: [DEMO_API_NAME] });
    }

    // The same full check from every face: one that checked less would meet damaged pages mid-command where the others salvage them.
    const { store, recovered } = CodeRunStore.open(dataDir);
    if (recovered) notices.push(describeRecovery(recovered));
    const recovery = store.recoverAfterCrash();
    if (recovery.interruptedRuns.length) {
      notices.push(`${recovery.interruptedRuns.length} run(s) were interrupted when the workbench last stopped; ${recovery.unknownCalls.length} call(s) were in flight and their outcome is unknown (nothing is re-sent).`);
    } else if (recovery.unknownCalls.length) {
      notices.push(`${recovery.unknownCalls.length} call(s) were still waiting for an answer after their run ended when the workbench last stopped; their outcome is unknown (nothing is re-sent).`);
    }

    const bus = new EventBus(log);
    const demo = new DemoUpstream({ token: DEMO_TOKEN });
    const apis = new ApiDirectory(registry, demo);
    const sandbox = new SandboxPool({ ...(options.sandboxSize ? { size: options.sandboxSize } : {}), log, ...(options.now ? { now: options.now } : {}) });
    const proxy: ProxyDeps = {
      target: (name) => apis.get(name),
      apiNames: () => apis.list().map((t) => t.name),
      vault,
      resolver,
      log,
    };
    const limits = options.limits ?? {};
    const engine = new RunEngine({
      store,
      sandbox,
      proxy,
      bus,
      log,
      limits,
      ...(options.now ? { now: options.now } : {}),
      ...(options.decisionTtlMs ? { decisionTtlMs: options.decisionTtlMs } : {}),
      world: {
        apis: {
          current: () => apis.list(),
          problem: (name) => apis.problems().get(name),
          artifact: (hash) => {
            const loaded = registry.store.load(hash);
            return loaded.ok ? { ok: true, artifact: loaded.artifact } : { ok: false, message: loaded.error.message };
          },
        },
        executePrelude: (targets, opaque) => executePrelude(Object.fromEntries(targets.map((t) => [t.name, t.artifact.operations.map((op) => op.id)])), opaque),
        globals: (targets) => ({
          vault: vaultGlobal(vault),
          context: Object.fromEntries(targets.map((t) => [t.name, (t.config.sandboxGlobals ?? {}) as JsonValue])),
        }),
        redactor: () => new Redactor(knownSecrets()),
      },
    });
    // Calls that recovery found unanswered in runs that had ended: their stored envelopes say so now.
    engine.refreshEnvelopes(recovery.unknownCalls.map((c) => c.runId));
    engine.expireDue();
    const agentLimits = new AgentLimitsSource(dataDir, options.agentLimitOverrides ?? {}, log);
    const workbench = new Workbench({ dataDir, registry, vault, store, sandbox, bus, demo, apis, engine, log, limits, agentLimits, signIns, approvals: options.approvals ?? "plan" });
    return { ok: true, workbench, notices };
  }

  /** Picks up what another process changed (APIs, vault) and resolves every API's target. */
  async ready(): Promise<void> {
    this.registry.syncFromDisk();
    this.vault.reload();
    await this.apis.refresh();
  }

  /** Runs a program with the execute tool's powers under `policy`. */
  async execute(request: ExecuteRequest): Promise<Envelope> {
    await this.ready();
    return this.engine.execute({ ...request, approvals: request.approvals ?? this.#approvals });
  }

  /** A new run from an existing run's program (or an edit of it), replaying its saved results unless `fresh`. */
  async replay(runId: string, options: { code?: string; fresh?: boolean; source: RunSource; preApprovedBy?: string; limits?: Partial<RunLimits> }): Promise<Envelope> {
    const parent = this.store.getRun(runId);
    if (!parent) return { run: "", status: "failed", calls: [], logs: [], error: { reason: "Unavailable", name: "Unavailable", message: `no run ${runId}` } };
    return this.execute({
      code: options.code ?? parent.program,
      policy: parent.policy,
      source: options.source,
      parentId: parent.id,
      ...(options.fresh ? { fresh: true } : {}),
      ...(options.preApprovedBy ? { preApprovedBy: options.preApprovedBy } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    });
  }

  async search(code: string, source: RunSource, limits?: Partial<RunLimits>): Promise<Envelope> {
    await this.ready();
    return runSearch(
      {
        store: this.store,
        sandbox: this.sandbox,
        apis: this.apis.list(),
        artifactText: (target) => this.registry.store.text(target.artifact.hash) ?? JSON.stringify(target.artifact),
        limits: this.#limits,
      },
      { code, source, ...(limits ? { limits } : {}) },
    );
  }

  /** Approve, deny or always-allow the call a run waits on; resolves with the run's next envelope. */
  async decide(runId: string, decision: "approve" | "deny" | "always", by: string, message?: string, writes?: number): Promise<{ ok: true; envelope: Envelope } | { ok: false; message: string }> {
    await this.ready();
    const result = this.engine.decide(runId, { decision, by, ...(message ? { message } : {}), ...(writes !== undefined ? { writes } : {}) });
    if (!result.ok) return result;
    return { ok: true, envelope: await result.continuation };
  }

  /**
   * For long-lived hosts (the app, `workbench serve`, a headless `workbench
   * mcp`): expire overdue decisions, and pick up APIs and vault items another
   * process changed (`workbench api add` in a terminal) as soon as their files
   * change, so the UI refreshes and MCP clients get tools/list_changed.
   */
  startBackgroundWork(): void {
    this.engine.startExpiryTimer();
    if (this.#watcher) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#watcher = watch(this.dataDir, (_event, file) => {
        // Saved limits are read at each use; windows only need to hear that they changed.
        if (file === "settings.json") return this.bus.publish({ type: "settings.changed" });
        if (file !== "registry.json" && file !== "vault.json") return;
        clearTimeout(timer);
        // Debounced: an atomic write is a create and a rename.
        timer = setTimeout(() => {
          this.registry.syncFromDisk();
          this.vault.reload();
        }, 100);
        timer.unref();
      });
      this.#watcher.unref();
      this.#watcher.on("error", (err) => this.#log(`watching ${this.dataDir} stopped: ${String(err)}`));
    } catch (err) {
      // Not fatal: changes are still picked up before every run.
      this.#log(`cannot watch ${this.dataDir}: ${String(err)}`);
    }
  }

  /**
   * Waits (up to `timeoutMs`) for the calls this process still has on the
   * wire, so that each is recorded as it really ends before the process
   * exits; true when none is left. Those left are recorded `unknown` by `close`.
   */
  finishCallsOnTheWire(timeoutMs: number): Promise<boolean> {
    return this.engine.wire.idle(timeoutMs);
  }

  /** `reason`: why runs still going are cancelled and calls still on the wire abandoned, in their records. */
  async close(reason?: string): Promise<void> {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.signIns.close();
    for (const off of this.#unsubscribe) off();
    await this.engine.stop(reason);
    await this.sandbox.close();
    await this.demo.close();
    this.store.close();
    this.#log("workbench closed");
  }
}
