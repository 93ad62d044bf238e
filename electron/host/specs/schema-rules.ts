/**
 * What a well-formed value looks like for each JSON Schema keyword whose shape
 * validators depend on. A schema keyword of the wrong shape (`required: true`
 * on a property, `type: "int"`, `minimum: "5"`, a pattern that is not a
 * regular expression) makes ajv refuse the whole schema, so the operation
 * could never be validated; ingest drops just that keyword and says so.
 */
import type { JsonValue } from "../../../shared/json.ts";
import { describeValue, isObject, isStringArray } from "./json-guards.ts";

const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

type Check = (value: JsonValue) => string | undefined;

const number: Check = (v) => (typeof v === "number" && Number.isFinite(v) ? undefined : `it must be a number, not ${describeValue(v)}`);
const count: Check = (v) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? undefined : `it must be a whole number of at least 0, not ${describeValue(v)}`);
const boolean: Check = (v) => (typeof v === "boolean" ? undefined : `it must be true or false, not ${describeValue(v)}`);
const string: Check = (v) => (typeof v === "string" ? undefined : `it must be a string, not ${describeValue(v)}`);

export const KEYWORD_CHECKS: Record<string, Check> = {
  type: (v) => {
    if (typeof v === "string") return TYPES.has(v) ? undefined : `${JSON.stringify(v)} is not a JSON Schema type (${[...TYPES].join(", ")})`;
    if (Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === "string" && TYPES.has(t))) return undefined;
    return `it must be a JSON Schema type name or a list of them, not ${describeValue(v)}`;
  },
  required: (v) => {
    if (isStringArray(v)) return undefined;
    if (typeof v === "boolean") return "a property's required flag belongs in its parent object's required list";
    return `it must be a list of property names, not ${describeValue(v)}`;
  },
  enum: (v) => (Array.isArray(v) ? undefined : `it must be a list of values, not ${describeValue(v)}`),
  minimum: number,
  maximum: number,
  exclusiveMinimum: (v) => (typeof v === "boolean" ? undefined : number(v)),
  exclusiveMaximum: (v) => (typeof v === "boolean" ? undefined : number(v)),
  multipleOf: (v) => (typeof v === "number" && v > 0 ? undefined : `it must be a number above 0, not ${describeValue(v)}`),
  minLength: count,
  maxLength: count,
  minItems: count,
  maxItems: count,
  minProperties: count,
  maxProperties: count,
  uniqueItems: boolean,
  nullable: boolean,
  readOnly: boolean,
  writeOnly: boolean,
  deprecated: boolean,
  format: string,
  pattern: (v) => {
    if (typeof v !== "string") return `it must be a regular expression string, not ${describeValue(v)}`;
    return compiles(v) ? undefined : `${JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)} is not a valid regular expression`;
  },
  discriminator: (v) => {
    if (!isObject(v) || typeof v.propertyName !== "string") return `it must be an object with a propertyName, not ${describeValue(v)}`;
    if (v.mapping !== undefined && !(isObject(v.mapping) && Object.values(v.mapping).every((m) => typeof m === "string"))) return "its mapping must map values to schema names or refs";
    return undefined;
  },
};

function compiles(pattern: string): boolean {
  // ajv compiles with the u flag; many real specs' patterns only compile without it, which ajv can be told to allow.
  for (const flags of ["u", ""]) {
    try {
      new RegExp(pattern, flags);
      return true;
    } catch {
      // try the next flags
    }
  }
  return false;
}
