/**
 * Every per-API option of shared/api-config.ts as a flag of `workbench api
 * add` and `workbench api set`, so nothing needs the app's form or a
 * hand-edited registry.json. Flags change only what they name; on `set`, an
 * empty value ("") clears an option back to its default. The config that
 * results is checked by the registry like any other (and a credential that
 * is not a vault reference is refused before anything is written).
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { readFileSync } from "node:fs";
import { VAULT_REF_PATTERN, validationMode, type ApiConfigInput, type InlineSecurityScheme } from "../../shared/api-config.ts";
import type { Artifact } from "../../shared/artifact.ts";
import type { JsonValue } from "../../shared/json.ts";
import { API_LIMIT_BOUNDS } from "../../shared/limits.ts";
import { CliError, type CliIo } from "./io.ts";
import { limitParser } from "./limit-flags.ts";

type AuthInput = NonNullable<ApiConfigInput["auth"]>;

export interface ApiFlags {
  baseUrl?: string;
  authScheme?: string;
  authInline?: InlineSecurityScheme | null;
  credential?: string;
  clientId?: string;
  scopes?: string[];
  auth?: boolean;
  idempotencyHeader?: string;
  responseHeaders?: string[];
  passthroughHeaders?: string[];
  context?: Record<string, JsonValue>;
  validate?: "strict" | "warn" | "off";
  timeoutMs?: number;
  maxResponseBytes?: number;
  approvals?: "plan" | "per-call";
}

/** Adds the option flags; `set` also gets --no-auth. */
export function addApiOptionFlags(command: Command, kind: "add" | "set"): Command {
  const clear = kind === "set" ? ' ("" clears)' : "";
  command
    .option("--base-url <URL>", kind === "add" ? "where calls go (default: the spec's first server)" : "where calls go")
    .option("--auth-scheme <NAME>", `the spec's security scheme to authenticate with${clear}`)
    .option("--auth-inline <scheme>", `for specs that declare none: bearer, basic, header:<Name>, query:<name>, cookie:<name> or oauth2:<token URL> (client credentials)${clear}`, parseInlineScheme)
    .option("--credential <vault:item/field>", `the vault reference holding the secret, e.g. vault:github/token${clear}`)
    .option("--client-id <ID>", `OAuth2 client id, or basic auth user name (a literal or vault:item/field)${clear}`)
    .option("--scopes <list>", `OAuth2 scopes to request, comma-separated${clear}`, parseList)
    .option("--idempotency-header <NAME>", `send writes with this header carrying a fresh key, recorded in the call log (e.g. Idempotency-Key)${clear}`)
    .option("--response-headers <list>", `response headers programs may read, comma-separated (content-type is always there)${clear}`, parseList)
    .option("--passthrough-headers <list>", `request headers programs may set, comma-separated${clear}`, parseList)
    .option("--context <json|@file>", `JSON object programs read as context.<name> (never secrets)${kind === "set" ? '; "{}" clears' : ""}`, parseContext)
    .addOption(new Option("--validate <mode>", "check calls against the spec: strict refuses, warn sends and logs, off skips (default strict)").choices(validationMode.options))
    .addOption(new Option("--approvals <mode>", "how writes are approved: plan (the program's writes forecast and approved at once; default) or per-call").choices(["plan", "per-call"]))
    .option("--timeout-ms <N>", `timeout of one call, in ms (${API_LIMIT_BOUNDS.timeoutMs.min}–${API_LIMIT_BOUNDS.timeoutMs.max.toLocaleString("en")}; default ${API_LIMIT_BOUNDS.timeoutMs.default.toLocaleString("en")})`, limitParser(API_LIMIT_BOUNDS.timeoutMs))
    .option("--max-response-bytes <N>", `largest response accepted, in bytes (${API_LIMIT_BOUNDS.maxResponseBytes.min.toLocaleString("en")}–${API_LIMIT_BOUNDS.maxResponseBytes.max.toLocaleString("en")}; default ${API_LIMIT_BOUNDS.maxResponseBytes.default.toLocaleString("en")})`, limitParser(API_LIMIT_BOUNDS.maxResponseBytes));
  if (kind === "set") command.option("--no-auth", "remove the API's authentication (scheme, credential, client id and scopes)");
  return command;
}

/** The flags applied to `current` (the registered config, or {} for a new API). */
export function applyApiFlags(io: CliIo, artifact: Artifact, current: ApiConfigInput, flags: ApiFlags): ApiConfigInput {
  const config: ApiConfigInput = structuredClone(current);
  if (flags.credential && !VAULT_REF_PATTERN.test(flags.credential)) {
    throw new CliError(`--credential must be a vault reference like vault:github/token, not ${JSON.stringify(flags.credential)} (store the secret with: workbench vault set <item>/<field> --stdin)`);
  }
  if (flags.baseUrl !== undefined) config.baseUrl = flags.baseUrl;
  if (flags.idempotencyHeader !== undefined) setOrClear(config, "autoIdempotencyHeader", flags.idempotencyHeader);
  if (flags.responseHeaders !== undefined) config.responseHeaders = flags.responseHeaders;
  if (flags.passthroughHeaders !== undefined) config.passthroughHeaders = flags.passthroughHeaders;
  if (flags.context !== undefined) setOrClear(config, "sandboxGlobals", Object.keys(flags.context).length ? flags.context : "");
  if (flags.validate !== undefined) config.validate = flags.validate;
  if (flags.approvals !== undefined) config.approvals = flags.approvals;
  if (flags.timeoutMs !== undefined) config.timeoutMs = flags.timeoutMs;
  if (flags.maxResponseBytes !== undefined) config.maxResponseBytes = flags.maxResponseBytes;
  const auth = applyAuthFlags(io, artifact, flags.auth === false ? undefined : current.auth, flags);
  if (auth) config.auth = auth;
  else delete config.auth;
  return config;
}

function applyAuthFlags(io: CliIo, artifact: Artifact, current: AuthInput | undefined, flags: ApiFlags): AuthInput | undefined {
  const auth: AuthInput = { ...current };
  if (flags.authScheme !== undefined) {
    setOrClear(auth, "scheme", flags.authScheme);
    if (flags.authScheme) delete auth.inline;
  }
  if (flags.authInline !== undefined) {
    if (flags.authInline) {
      auth.inline = flags.authInline;
      delete auth.scheme;
    } else delete auth.inline;
  }
  if (flags.credential !== undefined) setOrClear(auth, "credential", flags.credential);
  if (flags.clientId !== undefined) setOrClear(auth, "username", flags.clientId);
  if (flags.scopes !== undefined) {
    if (flags.scopes.length) auth.scopes = flags.scopes;
    else delete auth.scopes;
  }
  // A credential without a way to send it: the spec's only scheme, if it has exactly one.
  if (auth.credential !== undefined && auth.scheme === undefined && auth.inline === undefined) {
    const schemes = Object.keys(artifact.securitySchemes);
    if (schemes.length === 1) {
      auth.scheme = schemes[0]!;
      io.stderr(`note: using the spec's only security scheme, ${auth.scheme}\n`);
    } else if (schemes.length === 0) {
      throw new CliError("the spec declares no security schemes, so say how to send the credential with --auth-inline (bearer, basic, header:<Name>, query:<name>, cookie:<name>, oauth2:<token URL>)");
    } else {
      throw new CliError(`the spec has several security schemes; pick one with --auth-scheme (${schemes.join(", ")})`);
    }
  }
  return Object.keys(auth).length ? auth : undefined;
}

function setOrClear<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | ""): void {
  if (value === "") delete target[key];
  else target[key] = value as T[K];
}

function parseList(value: string): string[] {
  return value.split(",").map((v) => v.trim()).filter(Boolean);
}

/** `--context '{"org": "acme"}'` or `--context @context.json`. */
function parseContext(value: string): Record<string, JsonValue> {
  let text = value;
  if (value.startsWith("@")) {
    try {
      text = readFileSync(value.slice(1), "utf8");
    } catch (err) {
      throw new InvalidArgumentError(`cannot read ${value.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new InvalidArgumentError('must be a JSON object, e.g. {"org": "acme"}');
  return parsed as Record<string, JsonValue>;
}

/** `bearer`, `basic`, `header:X-Api-Key`, `query:api_key`, `cookie:session`, `oauth2:https://auth.example.com/token`; "" clears. */
export function parseInlineScheme(value: string): InlineSecurityScheme | null {
  const text = value.trim();
  if (text === "") return null;
  if (text === "bearer" || text === "basic") return { type: "http", scheme: text };
  const m = /^(header|query|cookie|oauth2):(.+)$/.exec(text);
  if (m?.[1] === "oauth2") {
    if (!URL.canParse(m[2]!)) throw new InvalidArgumentError(`oauth2:<token URL> needs a URL, not ${JSON.stringify(m[2])}`);
    return { type: "oauth2", flows: { clientCredentials: { tokenUrl: m[2]!, scopes: {} } } };
  }
  if (m) return { type: "apiKey", in: m[1] as "header" | "query" | "cookie", name: m[2]! };
  throw new InvalidArgumentError("expected bearer, basic, header:<Name>, query:<name>, cookie:<name> or oauth2:<token URL>");
}
