/**
 * `<dataDir>/settings.json`: settings every face shares (the app, `serve`,
 * `mcp`): today, the limits agent programs run under. Only the values a person
 * set are kept, so a changed default reaches everyone who did not choose.
 * All reading and writing of the file is here, in one small module, so that
 * it can move to a shared JSON-file store in one place.
 *
 * A file that is not JSON (or not the settings' shape) is moved aside, never
 * deleted, and the defaults apply; a value out of bounds (a hand edit) is
 * ignored and reported, and the rest of the file still applies.
 */
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { AGENT_LIMIT_BOUNDS, agentLimitsPatch, boundText, type AgentLimitKey, type AgentLimitsPatch } from "../../shared/limits.ts";
import { writeFileAtomic } from "./specs/atomic-file.ts";

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
  const path = settingsPath(dataDir);
  if (!existsSync(path)) return { settings: { agentLimits: {} } };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { settings: { agentLimits: {} } };
    return setAside(path, "it is not valid JSON");
  }
  const shape = fileShape.safeParse(data);
  if (!shape.success) return setAside(path, "it does not have the settings' shape");
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
  writeFileAtomic(settingsPath(dataDir), `${JSON.stringify({ format: SETTINGS_FORMAT, agentLimits }, null, 2)}\n`);
}

function setAside(path: string, why: string): SettingsRead {
  const keptAt = `${path}.unreadable-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  try {
    renameSync(path, keptAt);
  } catch {
    // Another process moved it first.
  }
  return { settings: { agentLimits: {} }, problem: `settings.json could not be read: ${why}. It was moved to ${keptAt} and the default limits apply` };
}
