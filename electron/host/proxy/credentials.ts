/**
 * Step 6: which credential goes on this request, decided host-side at the
 * moment of sending. A resolver sees the destination (method, base URL, host,
 * path template) so it can refuse at spend time; the default one reads the
 * API's auth config and the vault, refuses plain http except to loopback,
 * fetches OAuth2 client-credentials tokens, caching them until they expire,
 * and asks the host's sign-ins (electron/host/oauth/) for a person's token.
 * Its errors reach the program only in words it chose; anything it throws
 * becomes a fixed message.
 */
import type { AuthConfig, InlineSecurityScheme } from "../../../shared/api-config.ts";
import { VAULT_REF_PATTERN } from "../../../shared/api-config.ts";
import type { Operation, SecurityScheme } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import type { ApiTarget } from "./types.ts";
import type { VaultReader } from "../vault/references.ts";

export type Credential =
  | { kind: "none" }
  | { kind: "bearer"; token: string; label: string }
  | { kind: "basic"; username: string; password: string; label: string }
  | { kind: "apiKey"; value: string; label: string };

export interface Destination {
  api: string;
  method: string;
  baseUrl: string;
  host: string;
  /** The path template, e.g. /pets/{petId}. */
  path: string;
  url: URL;
}

export interface SchemeInUse {
  name: string;
  scheme: SecurityScheme | InlineSecurityScheme;
}

export interface ResolveRequest {
  target: ApiTarget;
  scheme: SchemeInUse;
  destination: Destination;
}

/** A refusal in the resolver's words; `details` travel with the program's error (e.g. `{reason: "sign_in_required", api}`). */
export type ResolveAnswer = Credential | { refused: string; details?: JsonValue };

export interface CredentialResolver {
  resolve(req: ResolveRequest): Promise<ResolveAnswer>;
  /**
   * Called once when the upstream answers 401 to `used`, the credential we
   * attached: a fresh credential to retry with once, or "pass" to give the
   * program the 401.
   */
  unauthorized?(req: ResolveRequest, used: Credential): Promise<Credential | "pass">;
  /** Secrets the resolver obtained at runtime (OAuth2 tokens), for redactors built before a call uses them. */
  knownSecrets?(): { label: string; value: string }[];
  /**
   * How the credential is shown to a person approving a call, when the
   * resolver has more to say than the configured reference (a sign-in: who,
   * which scopes). Approvals bind to it, so it must not change when a token
   * is refreshed.
   */
  describe?(target: ApiTarget, scheme: SchemeInUse): string | undefined;
}

/**
 * A person's OAuth2 sign-in to an API (authorization code or device flow),
 * kept by the host (electron/host/oauth/) with its tokens in the vault.
 */
export interface SignInTokens {
  /**
   * The sign-in's access token, refreshed first when it has expired, or when
   * `rejected` (a token the API just answered 401 to) is still the current one.
   */
  accessToken(target: ApiTarget, scheme: SchemeInUse, rejected?: string): Promise<{ token: string; label: string } | { refused: string; details?: JsonValue }>;
  /** `OAuth2 sign-in to notes: alice, scopes notes:read notes:write`: stable until the person signs in again. */
  describe(target: ApiTarget): string;
}

/** Whether calls under this scheme carry a person's sign-in rather than a secret of the API's own (client credentials). */
export function usesSignIn(auth: AuthConfig | undefined, scheme: SecurityScheme | InlineSecurityScheme): boolean {
  if (scheme.type === "openIdConnect") return true;
  if (scheme.type !== "oauth2") return false;
  return auth?.flow ? auth.flow !== "clientCredentials" : !scheme.flows.clientCredentials;
}

/** The scheme this API's calls use, or undefined when the operation needs none or none is configured. */
export function schemeFor(target: ApiTarget, operation: Operation): SchemeInUse | undefined {
  const auth = target.config.auth;
  if (!auth) return undefined;
  const artifact = target.artifact;
  const specDeclaresSecurity = Object.keys(artifact.securitySchemes).length > 0;
  // An operation whose spec says `security: []` needs no credential; a spec without any security info gets the inline scheme everywhere.
  if (specDeclaresSecurity && operation.security.length === 0) return undefined;
  if (auth.inline) return { name: "inline", scheme: auth.inline };
  if (auth.scheme) {
    const scheme = artifact.securitySchemes[auth.scheme];
    if (scheme) return { name: auth.scheme, scheme };
  }
  return undefined;
}

/** Where a scheme puts the credential: reserved, so a program can neither set nor shadow it. */
export interface CredentialSlots {
  /** Lower-case header names. */
  headers: string[];
  query: string[];
  cookies: string[];
}

export function credentialSlots(scheme: SchemeInUse | undefined): CredentialSlots {
  const slots: CredentialSlots = { headers: [], query: [], cookies: [] };
  const s = scheme?.scheme;
  if (s?.type === "apiKey") {
    if (s.in === "header") slots.headers.push(s.name.toLowerCase());
    else if (s.in === "query") slots.query.push(s.name);
    else slots.cookies.push(s.name);
  }
  return slots;
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export interface OAuthToken {
  token: string;
  expiresAt: number;
}

export interface DefaultResolverOptions {
  vault: Pick<VaultReader, "reveal" | "isAllowed"> & { reload?(): void };
  fetch?: typeof fetch;
  now?: () => number;
  /** Told about failures in full (never shown to programs). */
  log?: (message: string) => void;
  /** People's OAuth2 sign-ins; without it, APIs that need one are refused. */
  signIns?: SignInTokens;
}

/** The resolver used unless the host supplies its own: API auth config + vault. */
export class ConfiguredCredentialResolver implements CredentialResolver {
  readonly #vault: DefaultResolverOptions["vault"];
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #log: (message: string) => void;
  readonly #tokens = new Map<string, OAuthToken>();
  readonly #signIns: SignInTokens | undefined;

  constructor(opts: DefaultResolverOptions) {
    this.#signIns = opts.signIns;
    this.#vault = opts.vault;
    this.#fetch = opts.fetch ?? fetch;
    this.#now = opts.now ?? Date.now;
    this.#log = opts.log ?? (() => {});
  }

  async resolve(req: ResolveRequest): Promise<ResolveAnswer> {
    const { destination, target } = req;
    if (destination.url.protocol !== "https:" && !isLoopback(destination.url.hostname)) {
      return { refused: `credentials for ${target.name} are only sent over https (or to loopback); ${destination.url.origin} is plain http` };
    }
    const auth = target.config.auth ?? {};
    const scheme = req.scheme.scheme;
    if (usesSignIn(auth, scheme)) return this.#signedIn(req);
    if (scheme.type === "oauth2") return this.#oauthToken(req, auth, false);
    const secret = this.#secret(auth.credential, target.name);
    if ("refused" in secret) return secret;
    if (scheme.type === "apiKey") return { kind: "apiKey", value: secret.value, label: secret.label };
    if (scheme.type === "http" && scheme.scheme.toLowerCase() === "basic") {
      const user = auth.username ? this.#literalOrSecret(auth.username, target.name) : { value: "", label: "" };
      if ("refused" in user) return user;
      return { kind: "basic", username: user.value, password: secret.value, label: secret.label };
    }
    if (scheme.type === "http") return { kind: "bearer", token: secret.value, label: secret.label };
    return { refused: `security scheme ${req.scheme.name} (${scheme.type}) is not supported; configure bearer, basic, apiKey or oauth2` };
  }

  async unauthorized(req: ResolveRequest, used: Credential): Promise<Credential | "pass"> {
    if (usesSignIn(req.target.config.auth, req.scheme.scheme)) {
      // Refreshed once; a refresh the server refuses marks the sign-in expired, and the program gets the 401.
      const fresh = await this.#signedIn(req, used.kind === "bearer" ? used.token : undefined);
      return "refused" in fresh ? "pass" : fresh;
    }
    if (req.scheme.scheme.type === "oauth2") {
      const fresh = await this.#oauthToken(req, req.target.config.auth ?? {}, true);
      return "refused" in fresh ? "pass" : fresh;
    }
    // A static secret is "refreshed" by a person updating the vault (perhaps from another process a moment ago):
    // read the vault again, and retry once only if the value changed.
    this.#vault.reload?.();
    const fresh = await this.resolve(req);
    if ("refused" in fresh || sameCredential(fresh, used)) return "pass";
    return fresh;
  }

  describe(target: ApiTarget, scheme: SchemeInUse): string | undefined {
    if (!usesSignIn(target.config.auth, scheme.scheme)) return undefined;
    return this.#signIns?.describe(target) ?? `OAuth2 sign-in to ${target.name}`;
  }

  async #signedIn(req: ResolveRequest, rejected?: string): Promise<ResolveAnswer> {
    if (!this.#signIns) return { refused: `${req.target.name} needs a person's OAuth2 sign-in, which this workbench cannot hold` };
    const answer = await this.#signIns.accessToken(req.target, req.scheme, rejected);
    return "refused" in answer ? answer : { kind: "bearer", token: answer.token, label: answer.label };
  }

  knownSecrets(): { label: string; value: string }[] {
    return [...this.#tokens.entries()].map(([key, token]) => ({ label: `oauth:${key.split(" ")[0]}`, value: token.token }));
  }

  #secret(ref: string | undefined, api: string): { value: string; label: string } | { refused: string } {
    if (!ref) return { refused: `API ${api} has an auth scheme but no credential; set one with: workbench api add ... --credential vault:item/field` };
    const m = VAULT_REF_PATTERN.exec(ref);
    if (!m) return { refused: `the credential of ${api} is not a vault reference` };
    const [, item, field] = m as unknown as [string, string, string];
    if (!this.#vault.isAllowed(item, api)) return { refused: `vault item ${item} may not be sent to API ${api}; allow it in the vault first` };
    const revealed = this.#vault.reveal(item, field);
    if (!revealed.ok) return { refused: `the credential ${item}/${field} for ${api} is unavailable: ${revealed.message}` };
    return { value: revealed.value, label: `${item}/${field}` };
  }

  #literalOrSecret(text: string, api: string): { value: string; label: string } | { refused: string } {
    return VAULT_REF_PATTERN.test(text) ? this.#secret(text, api) : { value: text, label: "" };
  }

  async #oauthToken(req: ResolveRequest, auth: AuthConfig, force: boolean): Promise<ResolveAnswer> {
    const scheme = req.scheme.scheme;
    const flow = scheme.type === "oauth2" ? scheme.flows.clientCredentials : undefined;
    if (!flow) return { refused: `OAuth2 scheme ${req.scheme.name} has no client credentials flow; other flows need a person at a browser` };
    const tokenUrl = new URL(flow.tokenUrl, req.target.baseUrl);
    if (tokenUrl.protocol !== "https:" && !isLoopback(tokenUrl.hostname)) return { refused: `the OAuth2 token URL ${tokenUrl.origin} is not https` };
    const clientId = auth.username ? this.#literalOrSecret(auth.username, req.target.name) : { refused: `OAuth2 for ${req.target.name} needs a client id (auth.username)` };
    if ("refused" in clientId) return clientId;
    const secret = this.#secret(auth.credential, req.target.name);
    if ("refused" in secret) return secret;
    const key = `${req.target.name} ${tokenUrl.href} ${clientId.value}`;
    const cached = this.#tokens.get(key);
    if (!force && cached && cached.expiresAt > this.#now()) return { kind: "bearer", token: cached.token, label: `oauth:${req.target.name}` };
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (auth.scopes?.length) form.set("scope", auth.scopes.join(" "));
    try {
      const response = await this.#fetch(tokenUrl, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId.value)}:${encodeURIComponent(secret.value)}`).toString("base64")}`,
        },
        body: form.toString(),
        redirect: "error",
        signal: AbortSignal.timeout(req.target.config.timeoutMs),
      });
      const payload = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
      if (!response.ok || typeof payload.access_token !== "string") {
        this.#log(`oauth2 token request for ${req.target.name} failed: HTTP ${response.status} ${typeof payload.error === "string" ? payload.error : ""}`);
        return { refused: `the OAuth2 token endpoint of ${req.target.name} refused the client credentials (HTTP ${response.status})` };
      }
      const lifetime = typeof payload.expires_in === "number" ? payload.expires_in : 3600;
      // Refresh a little early so a token never expires between resolve and send.
      this.#tokens.set(key, { token: payload.access_token, expiresAt: this.#now() + Math.max(0, lifetime - 30) * 1000 });
      return { kind: "bearer", token: payload.access_token, label: `oauth:${req.target.name}` };
    } catch (err) {
      this.#log(`oauth2 token request for ${req.target.name} failed: ${String(err)}`);
      return { refused: `could not reach the OAuth2 token endpoint of ${req.target.name}` };
    }
  }
}

function sameCredential(a: Credential, b: Credential): boolean {
  if (a.kind === "bearer" && b.kind === "bearer") return a.token === b.token;
  if (a.kind === "basic" && b.kind === "basic") return a.username === b.username && a.password === b.password;
  if (a.kind === "apiKey" && b.kind === "apiKey") return a.value === b.value;
  return a.kind === b.kind;
}
