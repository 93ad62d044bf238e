/**
 * The limits an agent's programs run under, with the bounds every face checks
 * them against: one zod schema for the CLI's flags (`run`, `serve`, `mcp`),
 * the bridge's settings channel and the settings file in the data directory,
 * so a value one face refuses is refused by all, with the same words, before
 * anything runs. `--memory-mb 100000` is an error at parse time, never a
 * stored run that failed.
 */
import { z } from "zod";

export interface LimitBound {
  min: number;
  max: number;
  default: number;
  /** What the setting is, for labels and help: "memory". */
  label: string;
  /** The unit after a number: "MiB", "ms". */
  unit: string;
}

/** Every agent limit, by its settings key. */
export const AGENT_LIMIT_BOUNDS = {
  memoryMb: { min: 16, max: 4096, default: 128, label: "memory", unit: "MiB" },
  timeoutMs: { min: 10, max: 600_000, default: 10_000, label: "compute time", unit: "ms" },
  wallMs: { min: 10, max: 3_600_000, default: 60_000, label: "wall-clock time, calls included", unit: "ms" },
  maxCalls: { min: 0, max: 10_000, default: 100, label: "API calls", unit: "calls" },
  maxOutputKb: { min: 1, max: 65_536, default: 1024, label: "result size before the run fails OutputTooLarge", unit: "KiB" },
  maxResultTokens: { min: 100, max: 100_000, default: 6_000, label: "answer size (the envelope is cut to fit)", unit: "tokens" },
} as const satisfies Record<string, LimitBound>;

export type AgentLimitKey = keyof typeof AGENT_LIMIT_BOUNDS;
export const AGENT_LIMIT_KEYS = Object.keys(AGENT_LIMIT_BOUNDS) as AgentLimitKey[];

/** Per-API limits (in the API's settings), checked with the same words. */
export const API_LIMIT_BOUNDS = {
  timeoutMs: { min: 100, max: 600_000, default: 30_000, label: "timeout of one call", unit: "ms" },
  maxResponseBytes: { min: 1024, max: 1024 * 1024 * 1024, default: 10 * 1024 * 1024, label: "largest response accepted", unit: "bytes" },
} as const satisfies Record<string, LimitBound>;

/** "a whole number from 16 to 4096 (MiB)": what every face says about a bad value. */
export function boundText(bound: LimitBound): string {
  return `a whole number from ${bound.min.toLocaleString("en")} to ${bound.max.toLocaleString("en")} (${bound.unit})`;
}

export function boundedInteger(bound: LimitBound) {
  const message = `must be ${boundText(bound)}`;
  return z.number({ error: message }).int({ error: message }).min(bound.min, { error: message }).max(bound.max, { error: message });
}

/** A complete set of agent limits. */
export const agentLimits = z
  .object(Object.fromEntries(AGENT_LIMIT_KEYS.map((key) => [key, boundedInteger(AGENT_LIMIT_BOUNDS[key])])) as { [K in AgentLimitKey]: ReturnType<typeof boundedInteger> })
  .strict();
export type AgentLimits = z.infer<typeof agentLimits>;

/** Some limits (the rest default): what the settings file and the flags hold. */
export const agentLimitsPatch = agentLimits.partial();
export type AgentLimitsPatch = z.infer<typeof agentLimitsPatch>;

export const DEFAULT_AGENT_LIMITS: AgentLimits = Object.fromEntries(AGENT_LIMIT_KEYS.map((key) => [key, AGENT_LIMIT_BOUNDS[key].default])) as AgentLimits;

/** Checks one value as a face receives it: the number, or why not. */
export function checkLimit(bound: LimitBound, value: unknown): { ok: true; value: number } | { ok: false; message: string } {
  const parsed = boundedInteger(bound).safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: `must be ${boundText(bound)}` };
}

/** What the settings screen shows: saved values, the flags of the running process that override them, and what applies. */
export interface AgentLimitsView {
  saved: AgentLimitsPatch;
  /** Set by flags of the process serving this window (`workbench serve --memory-mb 256`); they win over saved values until it stops. */
  overrides: AgentLimitsPatch;
  effective: AgentLimits;
  defaults: AgentLimits;
}

/** defaults ← saved ← overrides. */
export function effectiveLimits(saved: AgentLimitsPatch, overrides: AgentLimitsPatch = {}): AgentLimits {
  const defined = (patch: AgentLimitsPatch) => Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_AGENT_LIMITS, ...defined(saved), ...defined(overrides) };
}
