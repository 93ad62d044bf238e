/**
 * registry.json on disk, through the common JSON-file store: the document is
 * `{format, apis: [...]}`, and each entry is judged on its own. An entry that
 * does not parse (a hand edit gone wrong, a damaged byte inside a string) is
 * kept exactly as found and written back with every later change, marked
 * unusable with the reason, until the person fixes it (`api set`) or removes
 * it (`api remove`). Dropping it on the next write would lose the person's
 * configuration for one bad character.
 */
import { z } from "zod";
import { apiConfig, apiNameProblem } from "../../../shared/api-config.ts";
import { describeIssues, inspectJsonFile, keepCopyOnce, readJsonFile, writeJsonFile, type JsonFileSpec } from "../common/json-file.ts";
import type { RegisteredApi } from "./registry-types.ts";

export const REGISTRY_FORMAT = 1;

export const apiSource = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), path: z.string() }),
  z.object({ kind: z.literal("url"), url: z.string() }),
  z.object({ kind: z.literal("text"), filename: z.string().optional() }),
  z.object({ kind: z.literal("demo") }),
]);

const registeredApi = z.object({
  name: z.string(),
  source: apiSource,
  specHash: z.string().regex(/^[0-9a-f]{64}$/),
  config: apiConfig,
  baseUrl: z.string().optional(),
  title: z.string(),
  version: z.string(),
  openapi: z.string(),
  operationCount: z.number(),
  warningCount: z.number(),
  addedAt: z.string(),
  updatedAt: z.string(),
});

const registryDocument = z.object({ format: z.literal(REGISTRY_FORMAT), apis: z.array(z.unknown()) });

/** An entry of registry.json that cannot be used as it is. */
export interface UnusableApi {
  /** Its name; `entry-<n>` (its position in the file) when it has none of its own, or shares one with an earlier entry. */
  name: string;
  reason: string;
  /** The entry exactly as stored, for a repair that keeps what is still good in it. */
  raw: unknown;
}

export interface RegistryContents {
  apis: RegisteredApi[];
  unusable: UnusableApi[];
}

/** What reading registry.json found, beyond its contents. */
export type RegistryFileRead =
  | { status: "ok" | "missing"; contents: RegistryContents; text: string; /** Set when some entries are unusable: where the file as found was copied. */ copiedTo?: string }
  | { status: "moved-aside"; contents: RegistryContents; problem: string; keptAt: string }
  /** Newer format or unreadable: left alone, and changes are refused until fixed. */
  | { status: "blocked"; contents: RegistryContents; problem: string };

function spec(file: string): JsonFileSpec<z.infer<typeof registryDocument>> {
  return { path: file, schema: registryDocument, format: REGISTRY_FORMAT };
}

const empty = (): RegistryContents => ({ apis: [], unusable: [] });

export function readRegistryFile(file: string, now: () => Date): RegistryFileRead {
  const read = readJsonFile(spec(file), now);
  switch (read.status) {
    case "missing":
      return { status: "missing", contents: empty(), text: "" };
    case "moved-aside":
      return { status: "moved-aside", contents: empty(), problem: read.problem, keptAt: read.keptAt };
    case "newer":
    case "unreadable":
      return { status: "blocked", contents: empty(), problem: read.problem };
    case "ok": {
      const contents = judgeEntries(read.value.apis);
      if (contents.unusable.length === 0) return { status: "ok", contents, text: read.text };
      return { status: "ok", contents, text: read.text, copiedTo: keepCopyOnce(file, JSON.stringify(contents.unusable.map((u) => u.raw))) };
    }
  }
}

/** The same judgement without changing anything on disk, for `workbench doctor`. */
export function inspectRegistryFile(file: string): ReturnType<typeof inspectJsonFile<RegistryContents>> {
  const state = inspectJsonFile(spec(file));
  return state.status === "ok" ? { status: "ok", value: judgeEntries(state.value.apis), text: state.text } : state;
}

/** Usable entries first, then the unusable ones exactly as they were found. */
export function writeRegistryFile(file: string, contents: RegistryContents): string {
  return writeJsonFile(file, { format: REGISTRY_FORMAT, apis: [...contents.apis, ...contents.unusable.map((u) => u.raw)] });
}

function judgeEntries(entries: readonly unknown[]): RegistryContents {
  const contents = empty();
  const names = new Set<string>();
  entries.forEach((raw, index) => {
    const ownName = typeof (raw as { name?: unknown } | null)?.name === "string" ? (raw as { name: string }).name : undefined;
    const label = ownName !== undefined && !names.has(ownName) && !apiNameProblem(ownName) ? ownName : `entry-${index + 1}`;
    const unusable = (reason: string) => {
      contents.unusable.push({ name: label, reason, raw });
      names.add(label);
    };
    if (ownName !== undefined && names.has(ownName)) return unusable(`a second entry named "${ownName}"`);
    const parsed = registeredApi.safeParse(raw);
    if (!parsed.success) return unusable(describeIssues(parsed.error.issues));
    const nameProblem = apiNameProblem(parsed.data.name);
    if (nameProblem) return unusable(`its name: ${nameProblem}`);
    contents.apis.push(parsed.data as RegisteredApi);
    names.add(parsed.data.name);
  });
  return contents;
}
