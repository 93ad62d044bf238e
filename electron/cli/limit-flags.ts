/**
 * The limit flags (`--memory-mb`, `--timeout-ms`, `--wall-ms`, `--max-calls`,
 * `--max-output-kb`, `--max-result-tokens`), checked at parse time against the
 * bounds of shared/limits.ts, the same the settings file and the bridge use: a
 * value out of bounds is `error: option '--memory-mb <N>' argument '100000' is
 * invalid. must be a whole number from 16 to 4,096 (MiB)` and exit 1, before
 * anything runs.
 */
import { InvalidArgumentError, type Command } from "commander";
import { AGENT_LIMIT_BOUNDS, boundText, checkLimit, type AgentLimitKey, type AgentLimitsPatch, type LimitBound } from "../../shared/limits.ts";

export const LIMIT_FLAGS: { key: AgentLimitKey; flag: string; help: string }[] = [
  { key: "memoryMb", flag: "--memory-mb <N>", help: "memory, in MiB" },
  { key: "timeoutMs", flag: "--timeout-ms <N>", help: "compute time, in ms" },
  { key: "wallMs", flag: "--wall-ms <N>", help: "wall-clock time, calls included, in ms" },
  { key: "maxCalls", flag: "--max-calls <N>", help: "API calls" },
  { key: "maxOutputKb", flag: "--max-output-kb <N>", help: "result size, in KiB (over it: OutputTooLarge)" },
  { key: "maxResultTokens", flag: "--max-result-tokens <N>", help: "cut the envelope structurally to about N tokens" },
];

export type LimitFlags = { [K in AgentLimitKey]?: number };

/** A commander parser for one bounded limit; `zero` also accepts 0 (which then means "no limit" to the caller). */
export function limitParser(bound: LimitBound, zero = false): (value: string) => number {
  return (value) => {
    const text = value.trim();
    if (zero && text === "0") return 0;
    const checked = /^\d+$/.test(text) ? checkLimit(bound, Number(text)) : undefined;
    if (!checked?.ok) throw new InvalidArgumentError(`must be ${boundText(bound)}${zero ? ", or 0" : ""}`);
    return checked.value;
  };
}

/**
 * Adds every limit flag to `command`; `note` (printed after the options) says
 * whose limits they are. `resultTokensZero` lets `--max-result-tokens 0` print
 * an envelope whole.
 */
export function addLimitFlags(command: Command, note: string | undefined, options: { resultTokensZero?: boolean } = {}): Command {
  for (const { key, flag, help } of LIMIT_FLAGS) {
    const bound = AGENT_LIMIT_BOUNDS[key];
    const zero = key === "maxResultTokens" && options.resultTokensZero === true;
    command.option(flag, `${help} (${bound.min.toLocaleString("en")}–${bound.max.toLocaleString("en")}; default ${bound.default.toLocaleString("en")}${zero ? "; 0: whole" : ""})`, limitParser(bound, zero));
  }
  if (note) command.addHelpText("after", `\n${note}`);
  return command;
}

/** The limits the flags set (the others stay as they are). */
export function limitsFromFlags(flags: LimitFlags): AgentLimitsPatch {
  const patch: AgentLimitsPatch = {};
  for (const { key } of LIMIT_FLAGS) if (flags[key] !== undefined) patch[key] = flags[key];
  return patch;
}
