import { describe, expect, it } from "vitest";
import { serializeCookieParam, serializeHeaderParam, serializePathParam, serializeQueryParam } from "./param-style.ts";

// The examples of the OpenAPI 3.x "Style Examples" table: color = blue | [blue, black, brown] | {R:100, G:200, B:150}.
const primitive = "blue";
const array = ["blue", "black", "brown"];
const object = { R: 100, G: 200, B: 150 };

describe("path parameter styles", () => {
  it.each([
    ["simple", false, primitive, "blue"],
    ["simple", false, array, "blue,black,brown"],
    ["simple", false, object, "R,100,G,200,B,150"],
    ["simple", true, object, "R=100,G=200,B=150"],
    ["label", false, primitive, ".blue"],
    ["label", false, array, ".blue,black,brown"],
    ["label", true, array, ".blue.black.brown"],
    ["label", true, object, ".R=100.G=200.B=150"],
    ["matrix", false, primitive, ";color=blue"],
    ["matrix", false, array, ";color=blue,black,brown"],
    ["matrix", true, array, ";color=blue;color=black;color=brown"],
    ["matrix", false, object, ";color=R,100,G,200,B,150"],
    ["matrix", true, object, ";R=100;G=200;B=150"],
  ] as const)("%s explode=%s %j", (style, explode, value, expected) => {
    expect(serializePathParam("color", value as never, { style, explode })).toBe(expected);
  });

  it("encodes reserved characters, slashes included", () => {
    expect(serializePathParam("name", "a/b c?", {})).toBe("a%2Fb%20c%3F");
  });
});

describe("query parameter styles", () => {
  it.each([
    ["form", true, primitive, ["color=blue"]],
    ["form", true, array, ["color=blue", "color=black", "color=brown"]],
    ["form", false, array, ["color=blue,black,brown"]],
    ["form", true, object, ["R=100", "G=200", "B=150"]],
    ["form", false, object, ["color=R,100,G,200,B,150"]],
    ["spaceDelimited", false, array, ["color=blue%20black%20brown"]],
    ["pipeDelimited", false, array, ["color=blue|black|brown"]],
    ["deepObject", true, object, ["color%5BR%5D=100", "color%5BG%5D=200", "color%5BB%5D=150"]],
  ] as const)("%s explode=%s %j", (style, explode, value, expected) => {
    expect(serializeQueryParam("color", value as never, { style, explode })).toEqual(expected);
  });

  it("defaults to form with explode, and sends JSON for content parameters", () => {
    expect(serializeQueryParam("ids", [1, 2], {})).toEqual(["ids=1", "ids=2"]);
    expect(serializeQueryParam("filter", { a: 1 }, { contentType: "application/json" })).toEqual(["filter=%7B%22a%22%3A1%7D"]);
  });

  it("keeps reserved characters only when allowReserved says so", () => {
    expect(serializeQueryParam("q", "a/b:c", {})).toEqual(["q=a%2Fb%3Ac"]);
    expect(serializeQueryParam("q", "a/b:c", { allowReserved: true })).toEqual(["q=a/b:c"]);
  });

  it("drops null values", () => {
    expect(serializeQueryParam("q", null, {})).toEqual([]);
  });
});

describe("header and cookie parameters", () => {
  it("serialises headers as simple and cookies as form", () => {
    expect(serializeHeaderParam(array, {})).toBe("blue,black,brown");
    expect(serializeHeaderParam(object, { explode: true })).toBe("R=100,G=200,B=150");
    expect(serializeCookieParam("session", "a b")).toBe("session=a%20b");
  });
});
