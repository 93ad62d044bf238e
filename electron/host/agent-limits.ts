/**
 * The limits agent programs run under in this process: the defaults, then
 * what a person saved (settings.json, from the app's settings screen or any
 * face), then the flags this process was started with (`workbench serve
 * --memory-mb 256`), which win until it stops. Read from the file at each use,
 * so a change saved in the app applies to the next tool call of every agent,
 * in every process sharing the data directory.
 */
import { agentLimitsPatch, DEFAULT_AGENT_LIMITS, effectiveLimits, type AgentLimits, type AgentLimitsPatch, type AgentLimitsView } from "../../shared/limits.ts";
import type { RunLimits } from "./sandbox/types.ts";
import { readSettings, writeSettings } from "./settings-file.ts";

export class AgentLimitsSource {
  readonly #dataDir: string;
  readonly #overrides: AgentLimitsPatch;
  readonly #log: (message: string) => void;
  #lastProblem: string | undefined;

  constructor(dataDir: string, overrides: AgentLimitsPatch = {}, log: (message: string) => void = () => {}) {
    this.#dataDir = dataDir;
    this.#overrides = agentLimitsPatch.parse(overrides);
    this.#log = log;
  }

  /** What applies to the next agent program. */
  current(): AgentLimits {
    return effectiveLimits(this.#saved(), this.#overrides);
  }

  view(): AgentLimitsView {
    const saved = this.#saved();
    return { saved, overrides: { ...this.#overrides }, effective: effectiveLimits(saved, this.#overrides), defaults: { ...DEFAULT_AGENT_LIMITS } };
  }

  /** Replaces the saved limits (keys left out go back to their defaults). */
  save(saved: AgentLimitsPatch): AgentLimitsView {
    const { settings } = readSettings(this.#dataDir);
    writeSettings(this.#dataDir, { ...settings, agentLimits: agentLimitsPatch.parse(saved) });
    return this.view();
  }

  #saved(): AgentLimitsPatch {
    const { settings, problem } = readSettings(this.#dataDir);
    // Said once per distinct problem, not at every tool call.
    if (problem && problem !== this.#lastProblem) this.#log(problem);
    this.#lastProblem = problem;
    return settings.agentLimits;
  }
}

/** The sandbox's limits for a set of agent limits (the result budget is the tools' business). */
export function runLimitsOf(limits: Partial<AgentLimits>): Partial<RunLimits> {
  const out: Partial<RunLimits> = {};
  if (limits.memoryMb !== undefined) out.memoryBytes = limits.memoryMb * 1024 * 1024;
  if (limits.timeoutMs !== undefined) out.cpuMs = limits.timeoutMs;
  if (limits.wallMs !== undefined) out.wallMs = limits.wallMs;
  if (limits.maxCalls !== undefined) out.maxCalls = limits.maxCalls;
  if (limits.maxOutputKb !== undefined) out.maxOutputBytes = limits.maxOutputKb * 1024;
  return out;
}
