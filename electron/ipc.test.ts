import type { BrowserWindow, IpcMain, IpcMainInvokeEvent } from "electron";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNELS } from "../shared/contract.ts";
import { createHandlers } from "./host/handlers/index.ts";
import { connectInfo } from "./host/handlers/connect.ts";
import { openTestBench, type TestBench } from "./host/test-support/workbench.ts";
import { ipcChannel } from "../shared/ipc-channels.ts";
import { APP_ORIGIN, registerIpcHandlers } from "./ipc.ts";

type Handler = (event: IpcMainInvokeEvent, payload: unknown) => Promise<unknown>;

let bench: TestBench;
const registered = new Map<string, Handler>();
const fakeIpcMain = { handle: (name: string, fn: Handler) => void registered.set(name, fn), removeHandler: (name: string) => void registered.delete(name) } as unknown as IpcMain;
const mainFrame = { url: `${APP_ORIGIN}/index.html` };
const window = { isDestroyed: () => false, webContents: { id: 7, mainFrame } } as unknown as BrowserWindow;
const event = (frame: { url: string } | null, senderId = 7) => ({ senderFrame: frame, sender: { id: senderId } }) as unknown as IpcMainInvokeEvent;

beforeAll(async () => {
  bench = await openTestBench();
  const handlers = createHandlers({ workbench: bench.workbench, shell: "electron", connect: { info: () => connectInfo("http://127.0.0.1:1/mcp", "t", bench.dataDir), rotate: async () => connectInfo("http://127.0.0.1:1/mcp", "t2", bench.dataDir) } });
  registerIpcHandlers(fakeIpcMain, handlers, () => window, () => {});
});
afterAll(async () => bench.close());

describe("Electron IPC handlers", () => {
  it("registers one handler per channel of the contract", () => {
    expect([...registered.keys()].sort()).toEqual(CHANNELS.map(ipcChannel).sort());
  });

  it("answers the window's own top frame, parsing the payload with the channel's schema", async () => {
    const info = registered.get(ipcChannel("app.info"))!;
    expect(await info(event(mainFrame), {})).toMatchObject({ shell: "electron", dataDir: bench.dataDir });
    expect(await info(event(mainFrame), { extra: true })).toEqual({ error: { code: "invalid-request", message: 'app.info: unknown field "extra"' } });
  });

  it("refuses other frames, other origins and other windows", async () => {
    const list = registered.get(ipcChannel("vault.reveal"))!;
    const refused = { error: { code: "failed", message: "refused: this request did not come from the workbench window" } };
    expect(await list(event({ url: `${APP_ORIGIN}/index.html` }), { item: "demo", field: "token" })).toEqual(refused); // an iframe: not the main frame object
    expect(await list(event(null), { item: "demo", field: "token" })).toEqual(refused);
    expect(await list(event(mainFrame, 8), { item: "demo", field: "token" })).toEqual(refused);
    const navigated = { url: "https://evil.example/" };
    const elsewhere = { isDestroyed: () => false, webContents: { id: 7, mainFrame: navigated } } as unknown as BrowserWindow;
    const local = new Map<string, Handler>();
    registerIpcHandlers({ handle: (n: string, fn: Handler) => void local.set(n, fn), removeHandler: () => {} } as unknown as IpcMain, {} as never, () => elsewhere, () => {});
    expect(await local.get(ipcChannel("vault.reveal"))!(event(navigated), { item: "demo", field: "token" })).toEqual(refused);
    expect(await list(event(mainFrame), { item: "demo", field: "token" })).toEqual({ ok: true, value: "demo-token" });
  });
});
