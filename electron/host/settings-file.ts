/**
 * `<dataDir>/settings.json`: settings every face shares (the app, `serve`,
 * `mcp`): today, the limits agent programs run under. Only the values a person
 * set are kept, so a changed default reaches everyone who did not choose.
 * Read and written with the data directory's JSON-file helper (common/json-file.ts):
 * a file that is not JSON (or not the settings' shape) is moved aside, never
 * deleted, and the defaults apply; a value out of bounds (a hand edit) is
 * ignored and reported, and the rest of the file still applies.
 */
import { join } from "node:path";
import { z } from "zod";
import { AGENT_LIMIT_BOUNDS, agentLimitsPatch, boundText, type AgentLimitKey, type AgentLimitsPatch } from "../../shared/limits.ts";
import { readJsonFile, writeJsonFile } from "./common/json-file.ts";

const SETTINGS_FORMAT = 1;
const fileShape = z.object({ format: z.literal(SETTINGS_FORMAT), agentLimits: z.record(z.string(), z.unknown()).optional() });

export interface Settings {
  agentLimits: AgentLimitsPatch;
}

export interface SettingsRead {
  settings: Settings;
  /** What was wrong with the file, said once to whoever reads it. */
  problem?: string;
}

export function settingsPath(dataDir: string): string {
  return join(dataDir, "settings.json");
}

export function readSettings(dataDir: string): SettingsRead {
  const read = readJsonFile({ path: settingsPath(dataDir), schema: fileShape, format: SETTINGS_FORMAT });
  if (read.status === "missing") return { settings: { agentLimits: {} } };
  if (read.status === "moved-aside") return { settings: { agentLimits: {} }, problem: `settings.json could not be read: ${read.problem}. It was moved to ${read.keptAt} and the default limits apply` };
  if (read.status !== "ok") return { settings: { agentLimits: {} }, problem: `settings.json ${read.problem}; the default limits apply` };
  const shape = { data: read.value };
  const agentLimits: AgentLimitsPatch = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(shape.data.agentLimits ?? {})) {
    const field = agentLimitsPatch.shape[key as AgentLimitKey];
    const parsed = field?.safeParse(value);
    if (field && parsed?.success && parsed.data !== undefined) agentLimits[key as AgentLimitKey] = parsed.data;
    else ignored.push(field ? `${key} must be ${boundText(AGENT_LIMIT_BOUNDS[key as AgentLimitKey])}, not ${JSON.stringify(value)}` : `${key} is not a setting`);
  }
  const problem = ignored.length ? `settings.json: ${ignored.join("; ")}; the default applies instead` : undefined;
  return { settings: { agentLimits }, ...(problem ? { problem } : {}) };
}

export function writeSettings(dataDir: string, settings: Settings): void {
  const agentLimits = agentLimitsPatch.parse(settings.agentLimits);
  writeJsonFile(settingsPath(dataDir), { format: SETTINGS_FORMAT, agentLimits });
}
