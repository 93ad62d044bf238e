/**
 * The built app, relocated and run under plain Node with `electron` resolved
 * to a stand-in that records what the app asks of it (see electron.ts).
 *
 * What this proves: the bundle runs from a folder with nothing but itself,
 * the renderer and the production dependencies (a module loaded from the
 * checkout fails the run); the main process wires Electron the way the
 * design says (the app:// scheme, navigation, new windows, webviews,
 * permissions, every IPC channel and its sender check); the MCP endpoint
 * answers a real SDK client; an agent's write reaches the person (OS
 * notification, badge, tray) and a click opens it; links and a second launch
 * reach the running app; settings stick; quitting closes the server and
 * removes the lockfile.
 *
 * What it does not prove: anything Chromium does (rendering, the CSP being
 * enforced, the sandboxed preload, context isolation), real OS keychains
 * (safeStorage is a scramble here), real windows, trays and notifications on
 * a desktop. e2e/electron-app.e2e.ts covers those wherever Electron's binary
 * exists.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNELS } from "../../shared/contract.ts";
import { CSP } from "../serve/security.ts";
import { envelopeOf, httpMcpClient } from "../serve/test-support.ts";
import { readLock, type ServeLock } from "../serve/lockfile.ts";
import { startStandInApp, type StandInApp, type StandInState } from "./client.ts";
import { CHECKOUT, relocateApp, type RelocatedApp } from "./relocate.ts";

let relocated: RelocatedApp;
let app: StandInApp;
let dataDir: string;
let lock: ServeLock;
let agent: Client | undefined;

const INDEX = "app://workbench/index.html";
const state = () => app.send<StandInState>({ op: "state" });
const invoke = <T = unknown>(channel: string, payload: unknown = {}, from: "window" | "iframe" | "other-page" | "other-contents" = "window") =>
  app.send<T>({ op: "invoke", channel: `workbench:${channel}`, payload, from });
const eventsSent = async (type: string) => ((await state()).window?.sent ?? []).filter((m) => m.channel === "workbench:event" && m.payload.type === type).map((m) => m.payload);

beforeAll(async () => {
  relocated = await relocateApp();
  dataDir = mkdtempSync(join(tmpdir(), "wb-stand-in-data-"));
  app = startStandInApp(relocated.main, { cwd: relocated.root, args: ["--data-dir", dataDir] });
  await app.until("the window to load", (s) => s.window?.url === INDEX);
  lock = await app.until("the lockfile", () => readLock(dataDir));
}, 120_000);

afterAll(async () => {
  await agent?.close().catch(() => {});
  if (app?.child.exitCode === null) app.child.kill();
  relocated?.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the relocated bundle", () => {
  it("holds the bundle, the renderer, the assets and production packages only, and names no path of the checkout", () => {
    const bundle = join(relocated.root, "dist", "electron");
    expect(readdirSync(bundle).sort()).toEqual(expect.arrayContaining(["assets", "main.js", "package.json", "preload.cjs", "sandbox-worker.js", "spec-reader.js", "workbench.js"]));
    expect(readdirSync(join(bundle, "assets")).sort()).toEqual(["guest-bootstrap.js", "guest-inspect.js", "icon.png", "petstore.yaml", "quickjs.wasm"]);
    for (const file of readdirSync(bundle).filter((f) => f.endsWith(".js") || f.endsWith(".cjs"))) {
      expect(readFileSync(join(bundle, file), "utf8"), file).not.toContain(CHECKOUT.replace(/\/$/, ""));
    }
    expect(existsSync(join(relocated.root, "node_modules", "electron"))).toBe(false);
    expect(existsSync(join(relocated.root, "node_modules", "vite"))).toBe(false);
    expect(existsSync(join(relocated.root, "node_modules", "electron-store"))).toBe(true);
  });

  it("finds its files beside itself: the icon, the preload, the renderer", async () => {
    const s = await state();
    const images = s.calls.filter((c) => c.api === "nativeImage.createFromPath");
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image.args).toEqual([join(relocated.root, "dist/electron/assets/icon.png"), true]);
    const prefs = s.window!.options.webPreferences as Record<string, unknown>;
    expect(prefs.preload).toBe(join(relocated.root, "dist/electron/preload.cjs"));
    expect(s.window!.options.icon).toBe(join(relocated.root, "dist/electron/assets/icon.png"));
  });

  it("the bundled CLI runs programs in the sandbox worker and searches through the spec reader", () => {
    const cliData = mkdtempSync(join(tmpdir(), "wb-stand-in-cli-"));
    try {
      const env = { ...process.env, WORKBENCH_DATA_DIR: cliData, WORKBENCH_VAULT_KEY: Buffer.alloc(32, 5).toString("base64") };
      const cli = join(relocated.root, "dist/electron/workbench.js");
      const run = spawnSync(process.execPath, [cli, "run", "--code", "-"], { cwd: relocated.root, input: "async () => (await apis.petstore.listPets({ limit: 1 })).status", encoding: "utf8", env, timeout: 30_000 });
      expect(run.stderr).toBe("");
      expect(JSON.parse(run.stdout)).toMatchObject({ status: "completed", result: 200 });
      const search = spawnSync(process.execPath, [cli, "search", "--code", "-"], { cwd: relocated.root, input: "async () => specs.petstore.operation('createPet').method", encoding: "utf8", env, timeout: 30_000 });
      expect(JSON.parse(search.stdout)).toMatchObject({ status: "completed", result: "post" });
    } finally {
      rmSync(cliData, { recursive: true, force: true });
    }
  });
});

describe("the window and the app:// scheme", () => {
  it("creates one locked-down window and loads the UI from app://workbench", async () => {
    const s = await state();
    expect(s.calls.find((c) => c.api === "protocol.registerSchemesAsPrivileged")?.args[0]).toEqual([
      { scheme: "app", privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
    ]);
    expect(s.schemes).toEqual(["app"]);
    expect(s.window!.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    expect(s.window!.visible).toBe(true);
  });

  it("seals the vault with safeStorage (here a stand-in, in the app the OS keychain)", async () => {
    expect((await state()).calls.map((c) => c.api)).toContain("safeStorage.encryptString");
    expect(readFileSync(join(dataDir, "vault.json"), "utf8")).toMatch(/"cipher": ?"electron-safestorage-/);
    expect(existsSync(join(dataDir, "vault.key"))).toBe(false);
  });

  it("serves the UI with the CSP, and its assets", async () => {
    const index = await app.send<{ status: number; headers: Record<string, string>; text: string }>({ op: "protocol", url: INDEX });
    expect(index.status).toBe(200);
    expect(index.headers["content-security-policy"]).toBe(CSP);
    expect(index.headers["x-content-type-options"]).toBe("nosniff");
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(index.text)?.[1];
    expect(script).toBeTruthy();
    const asset = await app.send<{ status: number; headers: Record<string, string>; bytes: number }>({ op: "protocol", url: `app://workbench/${script}` });
    expect(asset).toMatchObject({ status: 200, headers: { "content-type": "text/javascript; charset=utf-8" } });
    expect(asset.bytes).toBeGreaterThan(1000);
    expect((await app.send<{ status: number }>({ op: "protocol", url: "app://workbench/" })).status).toBe(200);
  });

  it("refuses paths that climb out of the renderer, and foreign hosts", async () => {
    for (const url of [
      "app://workbench/..%2f..%2fpackage.json",
      "app://workbench/%2e%2e%2f%2e%2e%2fpackage.json",
      "app://workbench/..%5c..%5cpackage.json",
      "app://workbench/%2e%2e/electron/main.js",
      "app://workbench/..%2felectron%2fmain.js",
      "app://workbench/index.html%00.js",
      "app://workbench/assets",
      "app://workbench/nope.js",
      "app://evil/index.html",
      "app://workbench.evil/index.html",
      "app://127.0.0.1/index.html",
    ]) {
      const res = await app.send<{ status: number; text?: string }>({ op: "protocol", url });
      expect(res.status, url).toBeGreaterThanOrEqual(400);
      expect(res.text ?? "", url).not.toMatch(/"dependencies"|import .* from/);
    }
  });

  it("denies navigation away from the UI, redirects, new windows and webviews (https links go to the browser)", async () => {
    expect(await app.send({ op: "navigate", event: "will-navigate", url: "https://example.com/" })).toEqual({ prevented: true });
    expect(await app.send({ op: "navigate", event: "will-navigate", url: "app://workbench/other.html" })).toEqual({ prevented: true });
    expect(await app.send({ op: "navigate", event: "will-navigate", url: "file:///etc/passwd" })).toEqual({ prevented: true });
    expect(await app.send({ op: "navigate", event: "will-navigate", url: INDEX })).toEqual({ prevented: false });
    expect(await app.send({ op: "navigate", event: "will-redirect", url: "https://example.com/" })).toEqual({ prevented: true });
    expect(await app.send({ op: "attach-webview" })).toEqual({ prevented: true });
    expect(await app.send({ op: "window-open", url: "https://docs.example.com/api" })).toEqual({ action: "deny" });
    expect(await app.send({ op: "window-open", url: "file:///etc/passwd" })).toEqual({ action: "deny" });
    expect(await app.send({ op: "window-open", url: "javascript:alert(1)" })).toEqual({ action: "deny" });
    const opened = (await state()).calls.filter((c) => c.api === "shell.openExternal").map((c) => c.args[0]);
    expect(opened).toEqual(["https://docs.example.com/api"]);
  });

  it("denies every permission", async () => {
    for (const permission of ["notifications", "media", "geolocation", "clipboard-read", "clipboard-sanitized-write", "openExternal", "fullscreen"]) {
      expect(await app.send({ op: "permission", permission }), permission).toEqual({ granted: false, check: false });
    }
  });
});

describe("IPC", () => {
  it("registers exactly the contract's channels (and electron-store's one listener)", async () => {
    const s = await state();
    expect([...s.ipcChannels].sort()).toEqual(CHANNELS.map((c) => `workbench:${c}`).sort());
    // electron-store answers its renderer API's version/path request; the preload exposes no ipcRenderer to reach it.
    expect(s.ipcListeners).toEqual(["electron-store-get-data"]);
  });

  it("every channel refuses a frame that is not the window's own top frame at app://workbench", async () => {
    for (const channel of CHANNELS) {
      for (const from of ["iframe", "other-page", "other-contents"] as const) {
        expect(await invoke(channel, {}, from), `${channel} from ${from}`).toEqual({ error: { code: "failed", message: "refused: this request did not come from the workbench window" } });
      }
    }
  });

  it("answers the window, parsing payloads with the contract", async () => {
    expect(await invoke("app.info")).toMatchObject({ shell: "electron", dataDir, version: JSON.parse(readFileSync(join(CHECKOUT, "package.json"), "utf8")).version });
    expect(await invoke("apis.list")).toEqual(expect.arrayContaining([expect.objectContaining({ name: "petstore" })]));
    expect(await invoke("runs.get", { id: "../../etc" })).toMatchObject({ error: { code: "invalid-request" } });
    const info = await invoke<{ mcpUrl: string; stdioCommand: string[] }>("connect.info");
    expect(info.mcpUrl).toBe(`${lock.url}/mcp`);
    expect(info.stdioCommand[1]).toBe(join(relocated.root, "dist/electron/workbench.js"));
  });
});

describe("approvals reach the person", () => {
  it("an agent's write over MCP raises a notification, the badge and a tray entry; clicking opens it in the inbox", async () => {
    expect(lock).toMatchObject({ kind: "app", pid: app.child.pid });
    agent = await httpMcpClient(`${lock.url}/mcp`, lock.mcpToken, "claude-code", "2.1.0");
    const tools = await agent.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search_apis", "execute_api_code", "execute_api_mutations", "get_code_run"]));
    const read = envelopeOf(await agent.callTool({ name: "execute_api_code", arguments: { code: "async () => (await apis.petstore.listPets({ limit: 1 })).status" } }));
    expect(read).toMatchObject({ status: "completed", result: 200 });

    await app.send({ op: "focus", focused: false });
    const write = envelopeOf(await agent.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => (await apis.petstore.createPet({ body: { name: "Nova" } })).status' } }));
    expect(write.status).toBe("pending");
    const s = await app.until("the notification", (st) => (st.notifications.length === 1 ? st : undefined));
    // The write began a plan (of one write): what waits is the plan.
    expect(s.notifications[0]).toMatchObject({ title: "Approval needed", body: "Agent claude-code 2.1.0 wants to send a plan of 1 write to petstore." });
    expect(s.badge).toBe(1);
    expect(s.tray!.tooltip).toBe("Codemode Workbench: 1 waiting for approval");
    expect(s.tray!.items).toEqual(["1 call waits for your approval", "a plan of 1 write to petstore · Agent claude-code 2.1.0", "separator", "Open Codemode Workbench", "Quit Codemode Workbench"]);

    await app.send({ op: "click-notification", index: 0 });
    await app.until("the window to come forward", (st) => st.window?.focused);
    expect(await eventsSent("app.open")).toContainEqual({ type: "app.open", target: { kind: "inbox", runId: write.run } });

    await app.send({ op: "click-tray", label: "a plan of 1 write to petstore · Agent claude-code 2.1.0" });
    expect((await eventsSent("app.open")).length).toBe(2);

    expect(await invoke("decisions.decide", { runId: write.run, decision: "approve" })).toMatchObject({ ok: true });
    await app.until("the badge to clear", (st) => st.badge === 0);
  });

  it("no notification while the window is in front (the badge still counts); none at all when turned off", async () => {
    await app.send({ op: "focus", focused: true });
    const before = (await state()).notifications.length;
    const write = envelopeOf(await agent!.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => (await apis.petstore.createPet({ body: { name: "Ada" } })).status' } }));
    expect(write, JSON.stringify(write)).toMatchObject({ status: "pending" });
    await app.until("the badge", (st) => st.badge === 1);
    await app.send({ op: "focus", focused: false });
    await app.send({ op: "click-menu", path: ["Approvals", "Never Notify"] });
    const second = envelopeOf(await agent!.callTool({ name: "execute_api_mutations", arguments: { code: 'async () => (await apis.petstore.createPet({ body: { name: "Bo" } })).status' } }));
    await app.until("the badge", (st) => st.badge === 2);
    expect((await state()).notifications.length).toBe(before);
    await app.send({ op: "click-menu", path: ["Approvals", "Notify When the App Is in the Background"] });
    for (const run of [write.run, second.run]) expect(await invoke("decisions.decide", { runId: run, decision: "deny" })).toMatchObject({ ok: true });
    await app.until("the badge to clear", (st) => st.badge === 0);
  });
});

describe("one instance, links and `workbench open`", () => {
  it("a second launch gives the first its link: the window comes forward and shows the run", async () => {
    const runs = await invoke<{ id: string }[]>("runs.list", {});
    const run = runs[0]!.id;
    await app.send({ op: "focus", focused: false });
    await app.send({ op: "second-instance", argv: ["/opt/Codemode Workbench/codemode-workbench", `codemode-workbench://run/${run}`] });
    await app.until("the window to come forward", (st) => st.window?.focused);
    expect(await eventsSent("app.open")).toContainEqual({ type: "app.open", target: { kind: "run", runId: run } });
    // A link that is not one of ours is ignored; the window still comes forward.
    await app.send({ op: "second-instance", argv: ["x", "codemode-workbench://run/../../etc/passwd"] });
    expect((await eventsSent("app.open")).filter((e) => JSON.stringify(e).includes("etc"))).toEqual([]);
  });

  it("`workbench open <run>` (the bundled CLI) shows the run in the running app", async () => {
    const run = (await invoke<{ id: string }[]>("runs.list", {}))[1]!.id;
    const cli = join(relocated.root, "dist/electron/workbench.js");
    const open = spawnSync(process.execPath, [cli, "open", run, "--data-dir", dataDir], { cwd: relocated.root, encoding: "utf8", timeout: 30_000 });
    expect(open.stderr).toBe("");
    expect(open.stdout).toBe(`${run}: shown in the app\n`);
    expect(open.status).toBe(0);
    expect(await eventsSent("app.open")).toContainEqual({ type: "app.open", target: { kind: "run", runId: run } });
    const missing = spawnSync(process.execPath, [cli, "open", "run_doesNotExist", "--data-dir", dataDir], { cwd: relocated.root, encoding: "utf8", timeout: 30_000 });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/there is no run run_doesNotExist/);
  });

  it("a second app started while the lock is held names the first and quits without opening the data directory", async () => {
    const record = join(dataDir, "..", `${relocated.root.split("/").pop()}-second.json`);
    const second = startStandInApp(relocated.main, { cwd: relocated.root, args: ["--data-dir", dataDir], env: { STAND_IN_RECORD: record } });
    expect((await second.exited).code).toBe(0);
    const calls = JSON.parse(readFileSync(record, "utf8")) as { api: string; args: unknown[] }[];
    rmSync(record);
    const asked = calls.find((c) => c.api === "dialog.showMessageBoxSync")?.args[0] as { message: string; detail: string };
    expect(asked.message).toBe(`Codemode Workbench is already running for ${dataDir}.`);
    expect(asked.detail).toContain(`(pid ${app.child.pid}) serves it at ${lock.url}`);
    expect(calls.map((c) => c.api)).not.toContain("new BrowserWindow");
    expect(second.output()).not.toMatch(/MCP endpoint|listening/);
    expect(readLock(dataDir)).toMatchObject({ pid: app.child.pid });
  });

  it("a launch that does not get the single-instance lock quits at once", async () => {
    const record = join(dataDir, "..", `${relocated.root.split("/").pop()}-third.json`);
    const second = startStandInApp(relocated.main, { cwd: relocated.root, args: ["--data-dir", dataDir], env: { STAND_IN_SECOND_INSTANCE: "1", STAND_IN_RECORD: record } });
    expect((await second.exited).code).toBe(0);
    const calls = (JSON.parse(readFileSync(record, "utf8")) as { api: string; args: unknown[] }[]).map((c) => c.api);
    rmSync(record);
    expect(calls).toEqual(expect.arrayContaining(["app.requestSingleInstanceLock", "app.quit"]));
    expect(calls).not.toContain("new BrowserWindow");
    expect(second.output()).not.toMatch(/MCP endpoint|listening/);
  });
});

describe("settings that stick", () => {
  it("keeps the theme and the open tabs in app-settings.json in the data directory", async () => {
    await app.send({ op: "click-menu", path: ["View", "Theme", "Dark"] });
    expect((await state()).calls.filter((c) => c.api === "nativeTheme.themeSource").map((c) => c.args[0])).toEqual(["system", "dark"]);
    const session = { tabs: [{ kind: "inbox" }, { kind: "operation", api: "petstore", operationId: "listPets" }], active: 1 };
    expect(await invoke("ui.session.save", session)).toEqual({ ok: true });
    expect(await invoke("ui.session.save", { tabs: [{ kind: "bogus" }] })).toMatchObject({ error: { code: "invalid-request" } });
    expect(await invoke("ui.session.get")).toEqual(session);
    const saved = JSON.parse(readFileSync(join(dataDir, "app-settings.json"), "utf8"));
    expect(saved).toMatchObject({ theme: "dark", notifications: "when-unfocused", session });
  });
});

describe("quitting", () => {
  it("closes the MCP server and removes the lockfile", async () => {
    await agent?.close();
    agent = undefined;
    await app.send({ op: "quit" });
    expect((await app.exited).code).toBe(0);
    expect(existsSync(join(dataDir, "serve.lock.json"))).toBe(false);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port: lock.port });
      socket.once("connect", () => (socket.destroy(), resolve(false)));
      socket.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, "app-settings.json"), "utf8")).window).toMatchObject({ maximized: false, bounds: { width: 1440, height: 900 } });
  });
});
