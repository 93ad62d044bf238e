import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { highSeverity, scan } from "./lint-security.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));

// `npm run lint:security` runs the scan over the app itself (and CI runs it); this shows it can fail.
describe("lint:security (Electronegativity)", () => {
  it("flags a window without context isolation or navigation limits as high severity", async () => {
    const { findings, unparsed } = await scan(["insecure-app/main.js"], fixtures);
    expect(unparsed).toEqual([]);
    const ids = highSeverity(findings).map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining(["CONTEXT_ISOLATION_JS_CHECK", "LIMIT_NAVIGATION_GLOBAL_CHECK"]));
    expect(findings.map((f) => f.id)).toEqual(expect.arrayContaining(["SANDBOX_JS_CHECK", "WEB_SECURITY_JS_CHECK"]));
  }, 60_000);
});
