/**
 * A shop API that really keeps items (ids from 1), its spec, and the plan
 * tests' program: create three items, then delete the first by the id its
 * creation returned.
 */
import { json, startRecordingServer, type RecordingServer } from "./recording-server.ts";

const ITEM = { type: "object", required: ["id", "name"], properties: { id: { type: "integer" }, name: { type: "string" } } };
export const SHOP_SPEC = {
  openapi: "3.0.3",
  info: { title: "Shop", version: "1" },
  components: { schemas: { Item: ITEM } },
  paths: {
    "/items": {
      get: { operationId: "listItems", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Item" } } } } } } },
      post: {
        operationId: "createItem",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } } } },
        responses: { "201": { description: "created", content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } } },
      },
    },
    "/items/{id}": {
      get: { operationId: "getItem", parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }], responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } } } },
      delete: { operationId: "deleteItem", parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }], responses: { "204": { description: "gone" } } },
    },
  },
};

/** A shop that really keeps items: ids from 1. */
export async function startShop(): Promise<RecordingServer> {
  let items: { id: number; name: string }[] = [];
  let next = 1;
  const server = await startRecordingServer((req, res) => {
    const id = Number(req.path.split("/")[2]);
    if (req.path === "/items" && req.method === "GET") return json(res, 200, items);
    if (req.path === "/items" && req.method === "POST") {
      const item = { id: next++, name: (JSON.parse(req.text || "{}") as { name?: string }).name ?? "?" };
      items.push(item);
      return json(res, 201, item);
    }
    const found = items.find((i) => i.id === id);
    if (!found) return json(res, 404, { error: "no such item" });
    if (req.method === "DELETE") {
      items = items.filter((i) => i.id !== id);
      return void res.writeHead(204).end();
    }
    json(res, 200, found);
  });
  return server;
}

export const CREATE_THREE_DELETE_FIRST = `async () => {
  const a = await apis.shop.createItem({ body: { name: "a" } });
  const b = await apis.shop.createItem({ body: { name: "b" } });
  const c = await apis.shop.createItem({ body: { name: "c" } });
  await apis.shop.deleteItem({ id: a.body.id });
  return [a.body.id, b.body.id, c.body.id];
}`;

