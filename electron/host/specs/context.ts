/** What every normalize step reads: the upgraded document and the owners of its cross-cutting state. */
import type { JsonObject } from "../../../shared/json.ts";
import { describeValue } from "./json-guards.ts";
import { childPointer } from "./pointer.ts";
import type { RefResolver } from "./refs.ts";
import type { RepairReport } from "./report.ts";
import type { SchemaCollector } from "./schemas.ts";

export interface NormalizeContext {
  doc: JsonObject;
  report: RepairReport;
  refs: RefResolver;
  schemas: SchemaCollector;
}

/** A string field, or undefined with a warning when the field holds something else. */
export function optionalString(ctx: NormalizeContext, holder: JsonObject, key: string, pointer: string): string | undefined {
  const value = holder[key];
  if (value === undefined || typeof value === "string") return value;
  ctx.report.dropped(childPointer(pointer, key), key, `it must be a string, not ${describeValue(value)}`);
  return undefined;
}

/** A boolean field, or undefined with a warning when the field holds something else. */
export function optionalBoolean(ctx: NormalizeContext, holder: JsonObject, key: string, pointer: string): boolean | undefined {
  const value = holder[key];
  if (value === undefined || typeof value === "boolean") return value;
  ctx.report.dropped(childPointer(pointer, key), key, `it must be true or false, not ${describeValue(value)}`);
  return undefined;
}
