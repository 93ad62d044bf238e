import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli, tempDataDir } from "../serve/test-support.ts";

// Against a running app: electron/stand-in/app.test.ts; against serve: the same channel (handlers.test.ts).
describe("workbench open", () => {
  it("says what to do when nothing runs for the data directory", async () => {
    const dataDir = tempDataDir("wb-open-");
    try {
      const out = await runCli(["open", "run_abc"], dataDir);
      expect(out.code).toBe(1);
      expect(out.stdout).toBe("");
      expect(out.stderr).toBe(`error: no app or workbench serve is running for ${dataDir}; start one (npm start, or workbench serve --open), or read the run here with: workbench runs show run_abc\n`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
