import { describe, expect, it } from "vitest";
import { startLoopbackRedirect } from "./loopback.ts";

describe("the loopback redirect listener", () => {
  it("listens on 127.0.0.1 at a port the OS picks, refuses other states and paths, accepts the matching one once, then closes", async () => {
    const seen: string[] = [];
    const listener = await startLoopbackRedirect("the-state", async (params) => {
      seen.push(params.get("code")!);
      return { ok: true, message: "Signed in to notes." };
    }, 10_000);
    const uri = new URL(listener.redirectUri);
    expect(uri.hostname).toBe("127.0.0.1");
    expect(Number(uri.port)).toBeGreaterThan(0);
    expect(uri.pathname).toBe("/oauth/callback");

    const wrong = await fetch(`${listener.redirectUri}?code=planted&state=not-it`);
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect((await fetch(`${uri.origin}/elsewhere?state=the-state`)).status).toBe(404);
    expect(seen).toEqual([]);

    const right = await fetch(`${listener.redirectUri}?code=real&state=the-state`);
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("Signed in to notes. You can close this tab.");
    expect(await listener.done).toEqual({ ok: true, message: "Signed in to notes." });
    expect(seen).toEqual(["real"]);
    await expect(fetch(`${listener.redirectUri}?code=again&state=the-state`)).rejects.toThrow();
  });

  it("a failed exchange is shown to the browser and ends the wait", async () => {
    const listener = await startLoopbackRedirect("s", async () => ({ ok: false, message: "the authorization server refused the code: invalid_grant." }), 10_000);
    const answer = await fetch(`${listener.redirectUri}?code=x&state=s`);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("Not signed in");
    expect(await listener.done).toMatchObject({ ok: false });
  });

  it("gives up after its timeout, and on close", async () => {
    const slow = await startLoopbackRedirect("s", async () => ({ ok: true, message: "" }), 100);
    await expect(slow.done).rejects.toThrow(/no answer from the browser within 0 s/);
    const closed = await startLoopbackRedirect("s", async () => ({ ok: true, message: "" }), 10_000);
    closed.close();
    await expect(closed.done).rejects.toThrow(/cancelled/);
    await expect(fetch(closed.redirectUri)).rejects.toThrow();
  });
});
