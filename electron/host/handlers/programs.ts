/**
 * `programs.*`: the editor's tabs, kept across restarts in
 * `<dataDir>/programs.json` (owner-only, written atomically: programs can
 * hold whatever a person typed). A file that no longer parses is moved aside
 * and reported in the log, never silently overwritten.
 */
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { SavedProgram } from "../../../shared/contract.ts";
import { writeFileAtomic } from "../common/atomic-file.ts";
import type { HandlerContext, HandlerGroup } from "./context.ts";

const PROGRAMS_FORMAT = 1;
const savedProgram = z.object({ id: z.string().min(1), name: z.string(), code: z.string(), policy: z.enum(["read_only", "all"]) });
const programsFile = z.object({ format: z.literal(PROGRAMS_FORMAT), programs: z.array(savedProgram) });

export class ProgramsFile {
  readonly path: string;
  readonly #log: (message: string) => void;

  constructor(dataDir: string, log: (message: string) => void = () => {}) {
    this.path = join(dataDir, "programs.json");
    this.#log = log;
  }

  list(): SavedProgram[] {
    if (!existsSync(this.path)) return [];
    let parsed: z.infer<typeof programsFile> | undefined;
    try {
      const result = programsFile.safeParse(JSON.parse(readFileSync(this.path, "utf8")));
      if (result.success) parsed = result.data;
    } catch {
      // Not JSON: handled below like any other unreadable file.
    }
    if (parsed) return parsed.programs;
    const keptAt = `${this.path}.unreadable-${Date.now()}`;
    renameSync(this.path, keptAt);
    this.#log(`programs.json could not be read; it was moved to ${keptAt} and the editor starts with no saved tabs`);
    return [];
  }

  save(programs: SavedProgram[]): void {
    writeFileAtomic(this.path, `${JSON.stringify({ format: PROGRAMS_FORMAT, programs }, null, 2)}\n`);
  }
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
