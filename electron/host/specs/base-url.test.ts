import { describe, expect, it } from "vitest";
import { defaultBaseUrl } from "./base-url.ts";

const file = { kind: "file", path: "/specs/x.yaml" } as const;

describe("defaultBaseUrl", () => {
  it("takes the first server, without a trailing slash", () => {
    expect(defaultBaseUrl([{ url: "https://api.example.com/v1/" }, { url: "http://other" }], file)).toEqual({ ok: true, url: "https://api.example.com/v1" });
  });

  it("fills server variables with their defaults", () => {
    const servers = [{ url: "https://{region}.example.com:{port}/v1", variables: { region: { default: "eu" }, port: { default: "8443" } } }];
    expect(defaultBaseUrl(servers, file)).toEqual({ ok: true, url: "https://eu.example.com:8443/v1" });
  });

  it("resolves a relative server against the URL the spec came from", () => {
    const source = { kind: "url", url: "https://docs.example.com/specs/openapi.json" } as const;
    expect(defaultBaseUrl([{ url: "/api/v1" }], source)).toEqual({ ok: true, url: "https://docs.example.com/api/v1" });
    expect(defaultBaseUrl([{ url: "v2" }], source)).toEqual({ ok: true, url: "https://docs.example.com/specs/v2" });
    expect(defaultBaseUrl([], source)).toEqual({ ok: true, url: "https://docs.example.com" });
  });

  it("asks for a base URL when there is nothing to resolve against", () => {
    expect(defaultBaseUrl([{ url: "/api" }], file)).toEqual({ ok: false, error: { code: "base-url-needed", message: expect.stringMatching(/relative .*--base-url/) } });
    expect(defaultBaseUrl([], { kind: "text" })).toMatchObject({ ok: false, error: { message: expect.stringContaining("lists no servers") } });
    expect(defaultBaseUrl([{ url: "https://{tenant}.example.com" }], file)).toMatchObject({ ok: false, error: { message: expect.stringContaining("{tenant} without a default") } });
    expect(defaultBaseUrl([{ url: "ftp://files.example.com" }], file)).toMatchObject({ ok: false, error: { message: expect.stringContaining("must be http or https, not ftp:") } });
  });
});
