import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { decisionNotifications, openSettings, SETTINGS_FILE, withDecisionNotifications } from "./settings.ts";

// electron-store reads Electron's `app` only for defaults we always pass (cwd, version); without one it needs an absolute cwd.
vi.mock("electron", () => ({ default: {} }));

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "wb-settings-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const file = (dir: string) => join(dir, `${SETTINGS_FILE}.json`);

describe("the app's settings (electron-store)", () => {
  it("starts from the defaults and keeps what is set, owner-only", () => {
    const dir = tempDir();
    const first = openSettings(dir, "0.1.0").store;
    expect(first.store).toMatchObject({ window: { maximized: false }, theme: "system", notifications: "when-unfocused", session: { tabs: [] } });
    first.set("window", { bounds: { x: 10, y: 20, width: 1200, height: 800 }, maximized: true });
    first.set("theme", "dark");
    first.set("session", { tabs: [{ kind: "run", runId: "run_abc" }, { kind: "inbox" }], active: 1 });
    const again = openSettings(dir, "0.1.0").store;
    expect(again.get("window")).toEqual({ bounds: { x: 10, y: 20, width: 1200, height: 800 }, maximized: true });
    expect(again.get("theme")).toBe("dark");
    expect(again.get("session")).toEqual({ tabs: [{ kind: "run", runId: "run_abc" }, { kind: "inbox" }], active: 1 });
    if (process.platform !== "win32") expect(statSync(file(dir)).mode & 0o777).toBe(0o600);
  });

  it("refuses a value the schema does not allow", () => {
    const store = openSettings(tempDir(), "0.1.0").store;
    expect(() => store.set("theme", "neon" as never)).toThrow(/theme/);
    expect(() => store.set("window", { bounds: { x: 0, y: 0, width: 10, height: 10 }, maximized: false })).toThrow(/width/);
    expect(store.get("theme")).toBe("system");
  });

  it("moves an unreadable or invalid file aside, says so, and starts from the defaults", () => {
    for (const content of ["{ not json", JSON.stringify({ theme: "neon" })]) {
      const dir = tempDir();
      writeFileSync(file(dir), content);
      const opened = openSettings(dir, "0.1.0", { now: () => 42 });
      expect(opened.notice).toMatch(/could not be read .* moved to .*app-settings\.json\.corrupt-42/);
      expect(opened.store.get("theme")).toBe("system");
      expect(readFileSync(join(dir, `${SETTINGS_FILE}.json.corrupt-42`), "utf8")).toBe(content);
    }
  });

  it("keeps keys it does not know (a newer version's file still opens)", () => {
    const dir = tempDir();
    writeFileSync(file(dir), JSON.stringify({ theme: "light", panes: { sidebar: 300 } }));
    const opened = openSettings(dir, "0.1.0");
    expect(opened.notice).toBeUndefined();
    expect(opened.store.get("theme")).toBe("light");
    expect((opened.store.store as unknown as Record<string, unknown>).panes).toEqual({ sidebar: 300 });
  });

  it("migrates to 0.2.0's notifications shape when the app reaches 0.2.0, and 0.1.x still reads it", () => {
    const dir = tempDir();
    const old = openSettings(dir, "0.1.0").store;
    old.set("notifications", "always");
    // Same version again: nothing to migrate.
    expect(openSettings(dir, "0.1.0").store.get("notifications")).toBe("always");
    const next = openSettings(dir, "0.2.0").store;
    expect(next.get("notifications")).toEqual({ decisions: "always", runs: "never" });
    const back = openSettings(dir, "0.1.5").store;
    expect(decisionNotifications(back.store)).toBe("always");
    back.set("notifications", withDecisionNotifications(back.get("notifications"), "never"));
    expect(back.get("notifications")).toEqual({ decisions: "never", runs: "never" });
    expect(readdirSync(dir).filter((f) => f.includes("corrupt"))).toEqual([]);
  });
});
