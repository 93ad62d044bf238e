import { describe, expect, it } from "vitest";
import { capBody } from "./body-cap.ts";

describe("capBody", () => {
  it("stores a body under the cap exactly as given", () => {
    const record = { status: 200, headers: {}, body: "hello" };
    expect(capBody(record, 5)).toBe(record);
    const noBody: { status: number; body?: string } = { status: 204 };
    expect(capBody(noBody, 0)).toBe(noBody);
  });

  it("cuts UTF-8 text on a character boundary and records the whole size", () => {
    const body = "aé€😀"; // 1 + 2 + 3 + 4 bytes
    expect(capBody({ body }, 9)).toEqual({ body: "aé€", truncated: true, bodyBytes: 10 });
    expect(capBody({ body }, 2)).toEqual({ body: "a", truncated: true, bodyBytes: 10 });
    expect(capBody({ body }, 0)).toEqual({ body: "", truncated: true, bodyBytes: 10 });
    for (let max = 0; max < 10; max++) expect(capBody({ body }, max).body).not.toContain("\uFFFD");
  });

  it("cuts base64 on whole 3-byte groups so it still decodes", () => {
    const bytes = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
    const capped = capBody({ body: bytes.toString("base64"), bodyEncoding: "base64" as const }, 10);
    expect(capped).toMatchObject({ truncated: true, bodyBytes: 100 });
    expect(Buffer.from(capped.body!, "base64").equals(bytes.subarray(0, 9))).toBe(true);
  });
});
