/**
 * The editor's declarations through the bridge of a real `workbench serve`
 * process: an API added as the UI adds it, its `.d.ts` fetched as Monaco
 * fetches it, and programs type-checked against it with the TypeScript compiler.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typeErrors } from "../host/test-support/typecheck.ts";
import { spawnServe, tempDataDir, type ServeChild } from "./test-support.ts";

const body = (ref: string) => ({ required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } } });
const returns = (ref: string) => ({ "200": { description: "ok", content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } } } });
const SPEC = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "Shop", version: "1" },
  servers: [{ url: "http://127.0.0.1:9" }],
  paths: {
    "/pets": { post: { operationId: "createPet", requestBody: body("Pet"), responses: returns("Pet") } },
    "/reviews": { post: { operationId: "postReview", requestBody: body("pull-request"), responses: returns("PullRequest") } },
  },
  components: {
    schemas: {
      Pet: { type: "object", required: ["id", "name"], properties: { id: { type: "integer", readOnly: true }, name: { type: "string" }, kind: { const: "pet", nullable: true } } },
      "pull-request": { type: "object", required: ["number"], properties: { number: { type: "integer" } } },
      PullRequest: { type: "object", required: ["title"], properties: { title: { type: "string" } } },
    },
  },
});

let serve: ServeChild;
let cookie = "";
const origin = () => new URL(serve.openUrl).origin;

beforeAll(async () => {
  serve = await spawnServe(tempDataDir("wb-decl-bridge-"));
  const token = serve.openUrl.split("#token=")[1]!;
  const session = await fetch(`${origin()}/auth/session`, { method: "POST", headers: { "content-type": "application/json", origin: origin() }, body: JSON.stringify({ token }) });
  expect(session.status).toBe(204);
  cookie = session.headers.get("set-cookie")!.split(";")[0]!;
}, 30_000);
afterAll(async () => {
  await serve?.stop();
});

async function bridge(channel: string, request: unknown): Promise<unknown> {
  const res = await fetch(`${origin()}/api/${channel}`, { method: "POST", headers: { "content-type": "application/json", cookie, origin: origin() }, body: JSON.stringify(request) });
  expect(res.status).toBe(200);
  return res.json();
}

describe("apis.declarations over the bridge", () => {
  it("declares what the validator accepts, with one type per schema", async () => {
    expect(await bridge("apis.add", { name: "shop", source: { kind: "text", text: SPEC } })).toMatchObject({ ok: true });
    const { dts } = (await bridge("apis.declarations", {})) as { dts: string };
    const program = (code: string) => `export {};\nasync function main() {\n${code}\n}\n`;
    const errors = typeErrors({
      "apis.d.ts": dts,
      "ok.ts": program(`
        const made = await apis.shop.createPet({ body: { name: "Rex" } });
        const id: number = made.body.id;
        const kind: "pet" | null | undefined = made.body.kind;
        const review = await apis.shop.postReview({ body: { number: 1 } });
        const title: string = review.body.title;
        return [id, kind, title];`),
      "noName.ts": program("await apis.shop.createPet({ body: {} });"),
      "swapped.ts": program('await apis.shop.postReview({ body: { title: "x" } });'),
    });
    expect(errors["apis.d.ts"]).toEqual([]);
    expect(errors["ok.ts"]).toEqual([]);
    expect(errors["noName.ts"]!.join("\n")).toMatch(/name/);
    expect(errors["swapped.ts"]!.join("\n")).toMatch(/title/);
  }, 30_000);
});
