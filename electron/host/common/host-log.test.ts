import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostLog, reportInternalError } from "./host-log.ts";

const SECRET = "hostlog-canary-5Tq9";
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(extra: Partial<ConstructorParameters<typeof HostLog>[0]> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "wb-hostlog-"));
  dirs.push(dataDir);
  const echoed: string[] = [];
  // The vault's Redactor in the workbench; a stand-in here (common/ knows no vault).
  const redactor = { redact: (text: string) => text.replaceAll(SECRET, "⟦hidden:svc/token⟧") };
  const log = new HostLog({ dataDir, redactor: () => redactor, echo: (line) => echoed.push(line), ...extra });
  return { dataDir, log, echoed };
}

describe("the host log", () => {
  it("keeps every line redacted, owner-only, in <dataDir>/logs/host.log, and echoes it redacted", () => {
    const { log, echoed } = open();
    log.write(`Headers.append: "x\\n=1; sess=${SECRET}" is an invalid header value`);
    const text = readFileSync(log.path, "utf8");
    expect(text).toContain("sess=⟦hidden:svc/token⟧");
    expect(text).not.toContain(SECRET);
    expect(echoed.join("\n")).not.toContain(SECRET);
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(log.path, "..")).mode & 0o777).toBe(0o700);
  });

  it("rotates at its size limit and keeps a bounded number of files", () => {
    const { log, dataDir } = open({ maxBytes: 2_000, keep: 3 });
    for (let i = 0; i < 200; i++) log.write(`line ${i} ${"x".repeat(40)}`);
    const files = readdirSync(join(dataDir, "logs")).sort();
    expect(files).toEqual(["host.log", "host.log.1", "host.log.2"]);
    for (const file of files) expect(statSync(join(dataDir, "logs", file)).size).toBeLessThan(2_200);
    expect(readFileSync(join(dataDir, "logs", "host.log"), "utf8")).toContain("line 199");
  });

  it("an internal failure is shown as a sentence with an error id, and the id finds the redacted detail", () => {
    const { log } = open();
    const shown = reportInternalError((m) => log.write(m), "the workbench could not process this call", new Error(`fetch failed for ${SECRET}`));
    const id = /internal error (E-[0-9A-Z]{6});/.exec(shown)?.[1];
    expect(shown).toMatch(/^the workbench could not process this call \(internal error E-[0-9A-Z]{6}; details in the host log, logs\/host\.log in the data directory\)$/);
    expect(shown).not.toContain(SECRET);
    const line = readFileSync(log.path, "utf8").split("\n").find((l) => l.includes(id!))!;
    expect(line).toContain("fetch failed for ⟦hidden:svc/token⟧");
  });
});
