/**
 * What a write answers while a plan is forecast: not sent, it returns a
 * response shaped by its operation's spec (the first 2xx response: its
 * example, else a sample of its schema from Redocly's openapi-sampler), with
 * `forecast: true` on the response and every value in the body made
 * distinctive (an integer from a reserved range, a string that says
 * "forecast"), and written in a ledger. When a later write's arguments hold one
 * of those values, the plan knows that part depends on the earlier write's
 * response ("from write 1's response: body.id"), and at apply time that part
 * takes the real value instead.
 */
import { sample } from "openapi-sampler";
import type { Artifact, JsonSchema, Operation } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { CallResponse } from "./types.ts";

/** Header every forecast answer carries, for programs that look at headers rather than `response.forecast`. */
export const FORECAST_HEADER = "x-workbench-forecast";
/** Forecast integers start here: far from the ids real APIs hand out in tests and demos, and within int32. */
const FIRST_FORECAST_INTEGER = 1_900_000_001;

export interface ForecastOrigin {
  /** The plan entry (write 1, 2, ...) whose forecast response holds the value. */
  write: number;
  /** Where in that response: `body.id`, `body.items.0.id`. */
  path: string;
}

/** Every distinctive value the forecast handed out, and where it came from. */
export class ForecastLedger {
  readonly #origins = new Map<string | number, ForecastOrigin>();
  #nextInteger = FIRST_FORECAST_INTEGER;
  #nextString = 1;

  /** A fresh integer the ledger will recognise. */
  integer(origin: ForecastOrigin): number {
    const value = this.#nextInteger++;
    this.#origins.set(value, origin);
    return value;
  }

  /** A fresh string the ledger will recognise, shaped for `format` where one is given. */
  string(origin: ForecastOrigin, format: string | undefined): string {
    const n = this.#nextString++;
    const tag = `${n}`.padStart(6, "0");
    const value =
      format === "uuid" ? `00000000-f0ec-4a57-8000-00000${tag.padStart(7, "0")}`
      : format === "email" ? `forecast-${tag}@forecast.invalid`
      : format === "uri" || format === "url" ? `https://forecast.invalid/${tag}`
      : format === "date-time" ? `2000-01-01T00:00:00.${tag.slice(-3)}Z`
      : `forecast-${tag}`;
    this.#origins.set(value, origin);
    return value;
  }

  /** Where a value came from, if the forecast handed it out. */
  originOf(value: JsonValue): ForecastOrigin | undefined {
    return typeof value === "string" || typeof value === "number" ? this.#origins.get(value) : undefined;
  }

  /** The forecast values a string holds inside it (`"/items/forecast-000001/tags"`), with where each came from. */
  within(text: string): { value: string; origin: ForecastOrigin }[] {
    const found: { value: string; origin: ForecastOrigin }[] = [];
    for (const [value, origin] of this.#origins) {
      const spelled = String(value);
      if (text !== spelled && text.includes(spelled)) found.push({ value: spelled, origin });
    }
    return found;
  }

  get size(): number {
    return this.#origins.size;
  }
}

/** The forecast response of `operation` for plan entry `write`, its values entered in the ledger. */
export function forecastResponse(artifact: Artifact, operation: Operation, write: number, ledger: ForecastLedger): CallResponse & { forecast: true } {
  const [code, response] = successResponse(operation);
  const status = code === "2XX" || code === "default" ? (operation.method === "post" ? 201 : 200) : Number(code);
  const media = response?.content ? pickJson(response.content) : undefined;
  const headers: Record<string, string> = { [FORECAST_HEADER]: "true" };
  if (!media || status === 204) return { status, headers, body: null, forecast: true };
  headers["content-type"] = media.type;
  const raw = media.value.example ?? firstExample(media.value.examples) ?? sampleOf(media.value.schema, artifact);
  const body = distinct(raw ?? null, media.value.schema, artifact, { write, path: "body" }, ledger);
  return { status, headers, body, forecast: true };
}

function successResponse(operation: Operation): [string, Operation["responses"][string] | undefined] {
  const codes = Object.keys(operation.responses);
  const preferred = operation.method === "post" ? ["201", "200", "202"] : ["200", "201", "202", "204"];
  for (const code of [...preferred, ...codes.filter((c) => /^2\d\d$/.test(c)).sort(), "2XX", "default"]) {
    if (codes.includes(code)) return [code, operation.responses[code]];
  }
  return [operation.method === "delete" ? "204" : "200", undefined];
}

function pickJson(content: Record<string, NonNullable<Operation["responses"][string]["content"]>[string]>) {
  const type = Object.keys(content).find((t) => /json/i.test(t)) ?? Object.keys(content)[0];
  return type ? { type, value: content[type]! } : undefined;
}

function firstExample(examples: Record<string, { value?: JsonValue }> | undefined): JsonValue | undefined {
  return examples ? Object.values(examples).find((e) => e.value !== undefined)?.value : undefined;
}

function sampleOf(schema: JsonSchema | undefined, artifact: Artifact): JsonValue | undefined {
  if (!schema) return undefined;
  try {
    // No `enablePatterns`: a spec's pattern is untrusted input, and generating from it is a backtracking risk.
    return sample(schema as never, { skipWriteOnly: true, quiet: true, maxSampleDepth: 8 }, { components: { schemas: artifact.schemas } }) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * The value with each integer and string leaf replaced by a distinctive one of
 * the same type (and, where the schema says, format), recorded in the ledger.
 * Booleans, enums and numbers with fractions stay as sampled: too few values
 * to tell apart, so no dependency is inferred from them.
 */
function distinct(value: JsonValue, schema: JsonSchema | undefined, artifact: Artifact, origin: ForecastOrigin, ledger: ForecastLedger, depth = 0): JsonValue {
  const resolved = resolve(schema, artifact);
  if (depth > 12) return value;
  if (Array.isArray(value)) return value.map((item, i) => distinct(item, resolved?.items as JsonSchema | undefined, artifact, { ...origin, path: `${origin.path}.${i}` }, ledger, depth + 1));
  if (value !== null && typeof value === "object") {
    const properties = (resolved?.properties ?? {}) as Record<string, JsonSchema>;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, distinct(item, properties[key], artifact, { ...origin, path: `${origin.path}.${key}` }, ledger, depth + 1)]));
  }
  if (resolved?.enum || resolved?.const !== undefined) return value;
  if (typeof value === "number" && Number.isInteger(value)) return ledger.integer(origin);
  if (typeof value === "string") return ledger.string(origin, typeof resolved?.format === "string" ? resolved.format : undefined);
  return value;
}

function resolve(schema: JsonSchema | undefined, artifact: Artifact): Record<string, unknown> | undefined {
  let current = schema as Record<string, unknown> | undefined;
  for (let hops = 0; hops < 10 && current && typeof current.$ref === "string"; hops++) {
    const name = decodeURIComponent(current.$ref.replace(/^#\/components\/schemas\//, "")).replace(/~1/g, "/").replace(/~0/g, "~");
    current = artifact.schemas[name] as Record<string, unknown> | undefined;
  }
  return current;
}
