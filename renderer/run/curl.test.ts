import { describe, expect, it } from "vitest";
import { toCurl } from "./curl.ts";

describe("toCurl", () => {
  it("quotes single quotes and keeps references as they are", () => {
    const curl = toCurl({
      method: "POST",
      url: "http://127.0.0.1:4010/pets?x=1",
      headers: { authorization: "Bearer ⟦vault:demo/token⟧", "content-type": "application/json", "content-length": "20" },
      body: `{"name":"O'Malley"}`,
    });
    expect(curl).toBe(
      `curl -X POST 'http://127.0.0.1:4010/pets?x=1' \\\n  -H 'authorization: Bearer ⟦vault:demo/token⟧' \\\n  -H 'content-type: application/json' \\\n  --data-raw '{"name":"O'\\''Malley"}'`,
    );
  });
  it("leaves out -X for GET", () => {
    expect(toCurl({ method: "GET", url: "http://h/x", headers: {} })).toBe("curl 'http://h/x'");
  });
});
