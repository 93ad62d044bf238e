/**
 * `programs.*`: the editor's tabs, kept across restarts in
 * `<dataDir>/programs.json`, through the common JSON-file store (owner-only,
 * atomic: programs can hold whatever a person typed). A file that no longer
 * parses is moved aside; a tab that no longer parses is left out of the list
 * and the file as found is copied aside once, so the next save (which writes
 * the tabs the editor has) loses nothing that was readable. A file from a
 * newer workbench, or one that cannot be read, is never written over.
 */
import { join } from "node:path";
import { z } from "zod";
import type { SavedProgram } from "../../../shared/contract.ts";
import { describeIssues, inspectJsonFile, keepCopyOnce, readJsonFile, writeJsonFile, type JsonFileSpec, type JsonFileState } from "../common/json-file.ts";
import type { HandlerContext, HandlerGroup } from "./context.ts";

export const PROGRAMS_FILE = "programs.json";
const PROGRAMS_FORMAT = 1;
const savedProgram = z.object({ id: z.string().min(1), name: z.string(), code: z.string(), policy: z.enum(["read_only", "all"]) });
const programsDocument = z.object({ format: z.literal(PROGRAMS_FORMAT), programs: z.array(z.unknown()) });

export interface ProgramsContents {
  programs: SavedProgram[];
  /** Tabs that do not parse, by position (1-based) and why. */
  unreadable: { position: number; reason: string; raw: unknown }[];
}

function programsFile(dataDir: string): JsonFileSpec<z.infer<typeof programsDocument>> {
  return { path: join(dataDir, PROGRAMS_FILE), schema: programsDocument, format: PROGRAMS_FORMAT };
}

/** programs.json's state, changing nothing (for `workbench doctor`). */
export function inspectProgramsFile(dataDir: string): JsonFileState<ProgramsContents> {
  const state = inspectJsonFile(programsFile(dataDir));
  return state.status === "ok" ? { status: "ok", value: judgePrograms(state.value.programs), text: state.text } : state;
}

export class ProgramsFile {
  readonly path: string;
  readonly #dataDir: string;
  readonly #log: (message: string) => void;

  constructor(dataDir: string, log: (message: string) => void = () => {}) {
    this.#dataDir = dataDir;
    this.path = programsFile(dataDir).path;
    this.#log = log;
  }

  list(): SavedProgram[] {
    const read = readJsonFile(programsFile(this.#dataDir));
    switch (read.status) {
      case "missing":
        return [];
      case "newer":
      case "unreadable":
        this.#log(`${PROGRAMS_FILE} is left as it is because ${read.problem}; the editor starts with no saved tabs and will not save them`);
        return [];
      case "moved-aside":
        this.#log(`${PROGRAMS_FILE} could not be read (${read.problem}); it was moved to ${read.keptAt} and the editor starts with no saved tabs`);
        return [];
      case "ok": {
        const contents = judgePrograms(read.value.programs);
        if (contents.unreadable.length > 0) {
          const copy = keepCopyOnce(this.path, JSON.stringify(contents.unreadable.map((u) => u.raw)));
          const which = contents.unreadable.map((u) => `tab ${u.position} (${u.reason})`).join(", ");
          this.#log(`${PROGRAMS_FILE}: ${which} could not be read and ${contents.unreadable.length === 1 ? "is" : "are"} left out; the file as found is kept at ${copy}`);
        }
        return contents.programs;
      }
    }
  }

  save(programs: SavedProgram[]): void {
    // Read first: a damaged file is moved aside rather than written over, and a newer or unreadable one is left alone.
    const current = readJsonFile(programsFile(this.#dataDir));
    if (current.status === "newer" || current.status === "unreadable") throw new Error(`${PROGRAMS_FILE} is left as it is because ${current.problem}; the tabs were not saved`);
    if (current.status === "moved-aside") this.#log(`${PROGRAMS_FILE} could not be read (${current.problem}); it was moved to ${current.keptAt} before saving the tabs`);
    writeJsonFile(this.path, { format: PROGRAMS_FORMAT, programs });
  }
}

function judgePrograms(entries: readonly unknown[]): ProgramsContents {
  const contents: ProgramsContents = { programs: [], unreadable: [] };
  entries.forEach((raw, index) => {
    const parsed = savedProgram.safeParse(raw);
    if (parsed.success) contents.programs.push(parsed.data);
    else contents.unreadable.push({ position: index + 1, reason: describeIssues(parsed.error.issues), raw });
  });
  return contents;
}

export function programHandlers(ctx: HandlerContext): HandlerGroup<"programs.list" | "programs.save"> {
  const file = new ProgramsFile(ctx.workbench.dataDir, ctx.log);
  return {
    "programs.list": async () => file.list(),
    "programs.save": async ({ programs }) => {
      file.save(programs);
      return { ok: true };
    },
  };
}
