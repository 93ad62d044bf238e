import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "./server.ts";

let server: DemoServer;
const auth = { authorization: "Bearer demo-token", "content-type": "application/json" };

beforeAll(async () => {
  server = await startDemoServer({ now: () => new Date("2025-05-01T12:00:00Z") });
});
afterAll(async () => {
  await server.close();
});

async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(server.url + path, {
    method,
    headers: init.headers,
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe("demo server", () => {
  it("listens on 127.0.0.1 on a free port", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("pages through pets with limit and offset", async () => {
    const first = await call("GET", "/pets?limit=5");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 12, limit: 5, offset: 0, nextOffset: 5 });
    expect(first.body.items.map((p: { id: number }) => p.id)).toEqual([1, 2, 3, 4, 5]);
    const last = await call("GET", "/pets?limit=5&offset=10");
    expect(last.body.items.map((p: { id: number }) => p.id)).toEqual([11, 12]);
    expect(last.body.nextOffset).toBeNull();
  });

  it("filters by status, tag and name", async () => {
    const cats = await call("GET", "/pets?tag=cat&status=available");
    expect(cats.body.items.map((p: { name: string }) => p.name)).toEqual(["Whiskers", "Luna", "Simba"]);
    expect(cats.body.total).toBe(3);
    const named = await call("GET", "/pets?name=LU");
    expect(named.body.items.map((p: { name: string }) => p.name)).toEqual(["Luna"]);
  });

  it("answers bad query parameters with a JSON 400", async () => {
    for (const query of ["limit=0", "limit=101", "limit=abc", "offset=-1", "status=lost", "name="]) {
      const res = await call("GET", `/pets?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe("bad_request");
      expect(res.headers.get("content-type")).toBe("application/json");
    }
  });

  it("gets a pet by id, 404 for a missing one and 400 for a malformed id", async () => {
    expect((await call("GET", "/pets/2")).body).toMatchObject({ id: 2, name: "Whiskers", category: { id: 2, name: "cats" } });
    expect(await call("GET", "/pets/999")).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await call("GET", "/pets/abc")).toMatchObject({ status: 400, body: { code: "bad_request" } });
  });

  it("refuses writes without the bearer token, and with a wrong one", async () => {
    const none = await call("POST", "/pets", { headers: { "content-type": "application/json" }, body: { name: "Nope" } });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    const wrong = await call("DELETE", "/pets/1", { headers: { authorization: "Bearer nope" } });
    expect(wrong).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    expect((await call("GET", "/pets/1")).status).toBe(200);
  });

  it("creates, updates and deletes a pet", async () => {
    const created = await call("POST", "/pets", { headers: auth, body: { name: "Biscuit", tags: ["dog"], categoryId: 1, birthDate: "2024-02-29" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Biscuit", status: "available", tags: ["dog"], category: { name: "dogs" }, createdAt: "2025-05-01T12:00:00.000Z" });
    const id = created.body.id as number;
    const updated = await call("PATCH", `/pets/${id}`, { headers: auth, body: { status: "sold", birthDate: null } });
    expect(updated.body).toMatchObject({ id, status: "sold", birthDate: null });
    expect((await call("DELETE", `/pets/${id}`, { headers: auth })).status).toBe(204);
    expect((await call("GET", `/pets/${id}`)).status).toBe(404);
  });

  it("validates bodies the way the spec says", async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /name is required/],
      [{ name: "" }, /name must be/],
      [{ name: "A", colour: "red" }, /unknown field "colour"/],
      [{ name: "A", status: "lost" }, /status must be one of/],
      [{ name: "A", categoryId: 9 }, /categoryId must be one of/],
      [{ name: "A", birthDate: "2023-02-30" }, /birthDate must be a date/],
      [[1, 2], /must be a JSON object/],
      ["{not json", /not valid JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await call("POST", "/pets", { headers: auth, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    const text = await call("POST", "/pets", { headers: { authorization: "Bearer demo-token", "content-type": "text/plain" }, body: "x" });
    expect(text.status).toBe(415);
    const empty = await call("PATCH", "/pets/1", { headers: auth, body: {} });
    expect(empty).toMatchObject({ status: 400, body: { message: "give at least one field to change" } });
  });

  it("places and cancels orders, moving the pet through pending", async () => {
    const before = (await call("GET", "/store/inventory")).body;
    const order = await call("POST", "/store/orders", { headers: auth, body: { petId: 4 } });
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ petId: 4, quantity: 1, status: "placed" });
    expect((await call("GET", "/pets/4")).body.status).toBe("pending");
    expect((await call("GET", "/store/inventory")).body).toEqual({ ...before, available: before.available - 1, pending: before.pending + 1 });
    expect(await call("POST", "/store/orders", { headers: auth, body: { petId: 4 } })).toMatchObject({ status: 409, body: { code: "conflict" } });
    expect((await call("GET", `/store/orders/${order.body.id}`)).body).toEqual(order.body);
    expect((await call("DELETE", `/store/orders/${order.body.id}`, { headers: auth })).status).toBe(204);
    expect((await call("GET", "/pets/4")).body.status).toBe("available");
    expect((await call("GET", `/store/orders/${order.body.id}`)).status).toBe(404);
  });

  it("serves the deprecated findByStatus", async () => {
    const res = await call("GET", "/pets/findByStatus?status=sold");
    expect(res.status).toBe(200);
    expect(res.body.every((p: { status: string }) => p.status === "sold")).toBe(true);
    expect((await call("GET", "/pets/findByStatus")).status).toBe(400);
  });

  it("answers unknown routes and methods with JSON errors", async () => {
    expect(await call("GET", "/nope")).toMatchObject({ status: 404, body: { code: "not_found" } });
    const res = await call("PUT", "/pets", { headers: auth, body: {} });
    expect(res).toMatchObject({ status: 405, body: { code: "method_not_allowed" } });
    expect(res.headers.get("allow")).toBe("GET, POST");
  });

  it("keeps separate state per server and honours a custom token", async () => {
    const other = await startDemoServer({ token: "s3cret" });
    try {
      const created = await fetch(`${other.url}/pets`, { method: "POST", headers: { authorization: "Bearer s3cret", "content-type": "application/json" }, body: '{"name":"Solo"}' });
      expect(created.status).toBe(201);
      expect(((await (await fetch(`${other.url}/pets?limit=100`)).json()) as { total: number }).total).toBe(13);
      expect(((await (await fetch(`${server.url}/pets?name=Solo`)).json()) as { total: number }).total).toBe(0);
    } finally {
      await other.close();
    }
  });
});
