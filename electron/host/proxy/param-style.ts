/**
 * OpenAPI parameter serialisation (style × explode × value shape), per the
 * spec's "Style Values" table. Returns already-encoded text fragments so the
 * request builder only concatenates.
 */
import type { Parameter } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";

type Location = Parameter["in"];

export interface StyleOptions {
  style?: string | undefined;
  explode?: boolean | undefined;
  allowReserved?: boolean | undefined;
  /** Parameters declared with `content` (e.g. application/json) are sent as that media type. */
  contentType?: string | undefined;
}

export function defaultStyle(location: Location): string {
  return location === "query" || location === "cookie" ? "form" : "simple";
}


export function encodeValue(text: string, allowReserved = false): string {
  const encoded = encodeURIComponent(text);
  if (!allowReserved) return encoded;
  // Put the reserved characters back as the spec's allowReserved says.
  return encoded.replace(/%(3A|2F|3F|23|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi, (m) => decodeURIComponent(m));
}

function scalar(value: JsonValue): string {
  if (value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function entriesOf(value: JsonValue): [string, JsonValue][] {
  return value && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [];
}

/** A path parameter's replacement text (styles simple, label, matrix). */
export function serializePathParam(name: string, value: JsonValue, opts: StyleOptions): string {
  const enc = (t: string) => encodeValue(t, opts.allowReserved);
  if (opts.contentType) return enc(JSON.stringify(value));
  const style = opts.style ?? "simple";
  const explode = opts.explode ?? false;
  const list = Array.isArray(value) ? value.map((v) => enc(scalar(v))) : undefined;
  const pairs = entriesOf(value).map(([k, v]) => [enc(k), enc(scalar(v))] as const);
  const isObject = !Array.isArray(value) && value !== null && typeof value === "object";
  if (style === "label") {
    if (list) return `.${list.join(explode ? "." : ",")}`;
    if (isObject) return `.${pairs.map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`)).join(explode ? "." : ",")}`;
    return `.${enc(scalar(value))}`;
  }
  if (style === "matrix") {
    if (list) return explode ? list.map((v) => `;${name}=${v}`).join("") : `;${name}=${list.join(",")}`;
    if (isObject) return explode ? pairs.map(([k, v]) => `;${k}=${v}`).join("") : `;${name}=${pairs.map(([k, v]) => `${k},${v}`).join(",")}`;
    return `;${name}=${enc(scalar(value))}`;
  }
  if (list) return list.join(",");
  if (isObject) return pairs.map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`)).join(",");
  return enc(scalar(value));
}

/** A query parameter as `name=value` pieces, already encoded (styles form, spaceDelimited, pipeDelimited, deepObject). */
export function serializeQueryParam(name: string, value: JsonValue, opts: StyleOptions): string[] {
  const enc = (t: string) => encodeValue(t, opts.allowReserved);
  const key = encodeValue(name);
  if (value === null || value === undefined) return [];
  if (opts.contentType) return [`${key}=${enc(JSON.stringify(value))}`];
  const style = opts.style ?? "form";
  const explode = opts.explode ?? style === "form";
  if (Array.isArray(value)) {
    const items = value.map((v) => enc(scalar(v)));
    if (explode) return items.map((v) => `${key}=${v}`);
    const sep = style === "spaceDelimited" ? "%20" : style === "pipeDelimited" ? "|" : ",";
    return [`${key}=${items.join(sep)}`];
  }
  if (typeof value === "object") {
    const pairs = Object.entries(value).filter(([, v]) => v !== null);
    if (style === "deepObject") return pairs.map(([k, v]) => `${key}%5B${encodeValue(k)}%5D=${enc(scalar(v))}`);
    if (explode) return pairs.map(([k, v]) => `${encodeValue(k)}=${enc(scalar(v))}`);
    return [`${key}=${pairs.map(([k, v]) => `${enc(k)},${enc(scalar(v))}`).join(",")}`];
  }
  return [`${key}=${enc(scalar(value))}`];
}

/** A header parameter's value (style simple). */
export function serializeHeaderParam(value: JsonValue, opts: StyleOptions): string {
  if (opts.contentType) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(scalar).join(",");
  if (value && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => ((opts.explode ?? false) ? `${k}=${scalar(v)}` : `${k},${scalar(v)}`)).join(",");
  }
  return scalar(value);
}

/** A cookie parameter as `name=value` (style form). */
export function serializeCookieParam(name: string, value: JsonValue): string {
  const text = Array.isArray(value) ? value.map(scalar).join(",") : scalar(value);
  return `${name}=${encodeURIComponent(text)}`;
}
