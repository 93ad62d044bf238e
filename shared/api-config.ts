/**
 * How a person configured one registered API: the things a spec cannot know
 * (where to send, which credential, what the program may read). Parsed with zod
 * in strict mode so an unknown option is an error that names it.
 */
import { z } from "zod";

/** `vault:item/field`: a credential is always a vault reference, never a value. */
export const VAULT_REF_PATTERN = /^vault:([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/;
export const vaultRef = z.string().regex(VAULT_REF_PATTERN, "must be a vault reference like vault:github/token");

const oauthScopes = z.record(z.string(), z.string()).default({});

export const inlineSecurityScheme = z.discriminatedUnion("type", [
  z.object({ type: z.literal("http"), scheme: z.enum(["bearer", "basic"]), bearerFormat: z.string().optional() }).strict(),
  z.object({ type: z.literal("apiKey"), name: z.string().min(1), in: z.enum(["header", "query", "cookie"]) }).strict(),
  z.object({
    type: z.literal("oauth2"),
    flows: z
      .object({
        clientCredentials: z.object({ tokenUrl: z.string().url(), scopes: oauthScopes }).strict().optional(),
        authorizationCode: z.object({ authorizationUrl: z.string().url(), tokenUrl: z.string().url(), scopes: oauthScopes }).strict().optional(),
        /** OpenAPI 3.2's name for RFC 8628's device authorization grant. */
        deviceAuthorization: z.object({ deviceAuthorizationUrl: z.string().url(), tokenUrl: z.string().url(), scopes: oauthScopes }).strict().optional(),
      })
      .strict()
      .refine((f) => f.clientCredentials || f.authorizationCode || f.deviceAuthorization, { message: "an oauth2 scheme needs at least one flow: clientCredentials, authorizationCode or deviceAuthorization" }),
  }).strict(),
]);
export type InlineSecurityScheme = z.infer<typeof inlineSecurityScheme>;

export const authConfig = z
  .object({
    /** A security scheme named in the spec's components.securitySchemes. */
    scheme: z.string().min(1).optional(),
    /** For specs that declare no scheme: how to attach the credential. */
    inline: inlineSecurityScheme.optional(),
    /** The secret: a bearer token, an API key, a basic password, an OAuth2 client secret. */
    credential: vaultRef.optional(),
    /** Basic auth user name, or OAuth2 client id (a literal or a vault reference); a sign-in's client id too. */
    username: z.string().optional(),
    /** OAuth2 scopes to request. */
    scopes: z.array(z.string()).optional(),
    /**
     * Which OAuth2 grant calls use when the scheme offers several: the API's
     * own client credentials, or a person's sign-in (authorization code or
     * device authorization; both keep access and refresh tokens in the vault).
     * Default: client credentials when the scheme has that flow, else sign-in.
     */
    flow: z.enum(["clientCredentials", "authorizationCode", "deviceAuthorization"]).optional(),
    /** The authorization server's issuer, for RFC 8414 / OpenID Connect discovery of its endpoints (revocation, device). */
    issuer: z.string().url().optional(),
  })
  .strict()
  .refine((a) => !(a.scheme && a.inline), { message: "give either scheme (from the spec) or inline, not both" });
export type AuthConfig = z.infer<typeof authConfig>;

export const validationMode = z.enum(["strict", "warn", "off"]);
export type ValidationMode = z.infer<typeof validationMode>;

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "must be an HTTP header name");

/**
 * Why `url` cannot be an API's base URL, or undefined when it can: http or
 * https only, and nothing a path could not follow (user info, a query, a
 * fragment). User info would sit in plain text in the registry, call records
 * and HAR; credentials belong in the vault.
 */
export function baseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url.slice(0, 200))} is not a URL`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `a base URL must be http or https, not ${parsed.protocol.replace(/:$/, "")}:`;
  if (parsed.username || parsed.password) {
    return "a base URL may not carry a user name or password: store the secret in the vault (workbench vault set) and give the API an auth scheme and a credential (--auth-scheme, --credential vault:item/field)";
  }
  if (parsed.search || parsed.hash) return "a base URL may not have a query or a fragment: an API key in the query belongs in the vault, sent by an apiKey auth scheme";
  return undefined;
}

const baseUrl = z.string().superRefine((url, ctx) => {
  const problem = baseUrlProblem(url);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const apiConfig = z
  .object({
    baseUrl: baseUrl.optional(),
    auth: authConfig.optional(),
    /** JSON values the program reads as `context.<api>`; never secrets. */
    sandboxGlobals: z.record(z.string(), z.json()).optional(),
    validate: validationMode.default("strict"),
    maxResponseBytes: z.number().int().positive().default(10 * 1024 * 1024),
    timeoutMs: z.number().int().positive().default(30_000),
    /** Headers a program may set itself (credential headers stay reserved). */
    passthroughHeaders: z.array(headerName).default([]),
    /** When set, writes carry this header with a fresh key, recorded in the call log. */
    autoIdempotencyHeader: headerName.optional(),
    /** How writes to this API are approved: from a plan of the program's writes (default), or each on its own. */
    approvals: z.enum(["plan", "per-call"]).optional(),
    /** Response headers a program may read (content-type is always there). */
    responseHeaders: z.array(headerName).default([]),
  })
  .strict();
export type ApiConfig = z.infer<typeof apiConfig>;
export type ApiConfigInput = z.input<typeof apiConfig>;

/** Words an API name may not be: they would shadow the sandbox's own globals or JS itself. */
export const RESERVED_API_NAMES = new Set([
  // sandbox globals
  "apis", "specs", "vault", "context", "console", "globalThis", "undefined", "NaN", "Infinity",
  "Object", "Array", "Promise", "JSON", "Math", "Date", "String", "Number", "Boolean", "Error", "Symbol",
  "request", "__proto__", "constructor", "prototype",
  // apis.call("<api>.<operation>", args)
  "call",
  // JavaScript reserved words
  "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
  "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "implements", "import",
  "in", "instanceof", "interface", "let", "new", "null", "package", "private", "protected", "public",
  "return", "static", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while",
  "with", "yield", "arguments", "eval",
]);

/** Returns why `name` cannot be an API name, or undefined when it can. */
export function apiNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) {
    const first = name[0];
    if (!name) return "an API name cannot be empty";
    if (first && /[0-9]/.test(first)) return `"${name}" starts with a digit; an API name must be a JavaScript identifier (it becomes apis.<name> in programs)`;
    return `"${name}" is not a JavaScript identifier (letters, digits, _ and $, not starting with a digit); it becomes apis.<name> in programs, so try "${name.replace(/[^A-Za-z0-9_$]+/g, "_").replace(/^([0-9])/, "_$1")}"`;
  }
  if (RESERVED_API_NAMES.has(name)) return `"${name}" is reserved in the sandbox; pick another name`;
  return undefined;
}
