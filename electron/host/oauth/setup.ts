/**
 * What a sign-in to one API needs, read from its config and its spec: the
 * scheme (the configured one, or the spec's only scheme a person can sign in
 * with), the client id (`auth.username`, a literal or a vault reference), an
 * optional client secret (`auth.credential`: confidential clients only; the
 * usual native-app client has none), the spec's endpoints and scopes, and the
 * issuer to discover the rest from. Refusals say what to configure.
 */
import type { AuthConfig, InlineSecurityScheme } from "../../../shared/api-config.ts";
import { VAULT_REF_PATTERN } from "../../../shared/api-config.ts";
import type { SecurityScheme } from "../../../shared/artifact.ts";
import { usesSignIn, type SchemeInUse } from "../proxy/credentials.ts";
import type { ApiTarget } from "../proxy/types.ts";
import type { VaultReader } from "../vault/references.ts";

export type SignInMethod = "authorizationCode" | "deviceAuthorization";

export interface SignInSetup {
  api: string;
  scheme: SchemeInUse;
  /** Set when the API had no scheme configured and the spec's only sign-in scheme was picked: save it. */
  pickedScheme?: string;
  clientId: string;
  clientSecret?: string;
  /** Endpoints the spec (or the inline scheme) gives; discovery may add or replace them. */
  authorizationUrl?: string;
  deviceAuthorizationUrl?: string;
  tokenUrl?: string;
  /** Where to look for RFC 8414 / OpenID Connect metadata, best first. */
  discovery: { issuer: string; openIdConfiguration?: string }[];
  /** Scopes the spec lists, with their descriptions. */
  scopes: Record<string, string>;
  /** Scopes to ask for unless the person picks others. */
  defaultScopes: string[];
}

/** `takesNoSignIn`: the API authenticates some other way (or not at all); any other refusal is something to configure. */
export type SetupResult = { ok: true; setup: SignInSetup } | { ok: false; message: string; takesNoSignIn?: true };

type AnyScheme = SecurityScheme | InlineSecurityScheme;

export function signInSetup(target: ApiTarget, vault: Pick<VaultReader, "reveal" | "isAllowed">, clientIdOverride?: string): SetupResult {
  const auth: AuthConfig = target.config.auth ?? {};
  const picked = pickScheme(target, auth);
  if (!picked.ok) return picked;
  const { scheme } = picked;
  const s = scheme.scheme;

  const rawId = clientIdOverride ?? auth.username;
  if (!rawId) {
    return {
      ok: false,
      message: `signing in to ${target.name} needs the OAuth client id the workbench was registered with at ${describeProvider(s)}: give it with --client-id (workbench auth login ${target.name} --client-id <id>) or in the API's settings`,
    };
  }
  const clientId = literalOrVault(rawId, target.name, vault);
  if (!clientId.ok) return clientId;
  let clientSecret: string | undefined;
  if (auth.credential) {
    const secret = literalOrVault(auth.credential, target.name, vault);
    if (!secret.ok) return secret;
    clientSecret = secret.value;
  }

  const flows = s.type === "oauth2" ? s.flows : {};
  const code = "authorizationCode" in flows ? flows.authorizationCode : undefined;
  const device = "deviceAuthorization" in flows ? flows.deviceAuthorization : undefined;
  const tokenUrl = code?.tokenUrl ?? device?.tokenUrl;
  const discovery: SignInSetup["discovery"] = [];
  if (auth.issuer) discovery.push({ issuer: auth.issuer });
  if (s.type === "openIdConnect") {
    const url = new URL(s.openIdConnectUrl, target.baseUrl);
    discovery.push({ issuer: url.href.replace(/\/\.well-known\/openid-configuration$/, ""), openIdConfiguration: url.href });
  }
  // A server that publishes metadata at the token endpoint's origin (RFC 8414) is the usual case; one that does not costs one 404.
  const origin = tokenUrl ?? code?.authorizationUrl ?? device?.deviceAuthorizationUrl;
  if (origin && !auth.issuer) discovery.push({ issuer: new URL(origin, target.baseUrl).origin });

  const scopes = { ...(code?.scopes ?? {}), ...(device?.scopes ?? {}) };
  const required = [...new Set(target.artifact.operations.flatMap((op) => op.security.flatMap((req) => req[scheme.name] ?? [])))];
  return {
    ok: true,
    setup: {
      api: target.name,
      scheme,
      ...(picked.pickedScheme ? { pickedScheme: picked.pickedScheme } : {}),
      clientId: clientId.value,
      ...(clientSecret ? { clientSecret } : {}),
      ...(code ? { authorizationUrl: new URL(code.authorizationUrl, target.baseUrl).href } : {}),
      ...(device ? { deviceAuthorizationUrl: new URL(device.deviceAuthorizationUrl, target.baseUrl).href } : {}),
      ...(tokenUrl ? { tokenUrl: new URL(tokenUrl, target.baseUrl).href } : {}),
      discovery,
      scopes,
      defaultScopes: auth.scopes ?? required.filter((scope) => Object.hasOwn(scopes, scope)),
    },
  };
}

/** The configured scheme when it takes a sign-in; with none configured, the spec's only one that does. */
function pickScheme(target: ApiTarget, auth: AuthConfig): { ok: true; scheme: SchemeInUse; pickedScheme?: string } | { ok: false; message: string; takesNoSignIn?: true } {
  const configured: SchemeInUse | undefined = auth.inline
    ? { name: "inline", scheme: auth.inline }
    : auth.scheme && target.artifact.securitySchemes[auth.scheme]
      ? { name: auth.scheme, scheme: target.artifact.securitySchemes[auth.scheme]! }
      : undefined;
  if (configured) {
    if (usesSignIn(auth, configured.scheme)) return { ok: true, scheme: configured };
    return {
      ok: false,
      takesNoSignIn: true,
      message: `${target.name} authenticates with ${configured.name} (${describeScheme(configured.scheme)}), which takes no sign-in; a person signs in to an oauth2 scheme with an authorizationCode or deviceAuthorization flow, or to an openIdConnect scheme`,
    };
  }
  const candidates = Object.entries(target.artifact.securitySchemes).filter(([, scheme]) => signInFlows(scheme));
  if (candidates.length === 1) {
    const [name, scheme] = candidates[0]!;
    return { ok: true, scheme: { name, scheme }, pickedScheme: name };
  }
  if (candidates.length > 1) return { ok: false, message: `the spec of ${target.name} has several schemes to sign in with (${candidates.map(([n]) => n).join(", ")}); pick one in the API's settings` };
  return {
    ok: false,
    takesNoSignIn: true,
    message: `the spec of ${target.name} declares no OAuth2 scheme to sign in with; describe one inline in the API's settings (an oauth2 scheme with an authorizationCode or deviceAuthorization flow: where to sign in and where to get tokens)`,
  };
}

function signInFlows(scheme: AnyScheme): boolean {
  if (scheme.type === "openIdConnect") return true;
  if (scheme.type !== "oauth2") return false;
  const flows = scheme.flows as { authorizationCode?: unknown; deviceAuthorization?: unknown };
  return Boolean(flows.authorizationCode || flows.deviceAuthorization);
}

function describeScheme(scheme: AnyScheme): string {
  if (scheme.type === "oauth2") return `OAuth2 with ${Object.keys(scheme.flows).join(", ")}`;
  if (scheme.type === "http") return `HTTP ${scheme.scheme}`;
  return scheme.type;
}

function describeProvider(scheme: AnyScheme): string {
  const flows = scheme.type === "oauth2" ? scheme.flows : {};
  const url = ("authorizationCode" in flows ? flows.authorizationCode?.authorizationUrl : undefined) ?? ("deviceAuthorization" in flows ? flows.deviceAuthorization?.deviceAuthorizationUrl : undefined);
  if (url) {
    try {
      return new URL(url).host;
    } catch {
      // fall through
    }
  }
  return "its authorization server";
}

function literalOrVault(text: string, api: string, vault: Pick<VaultReader, "reveal" | "isAllowed">): { ok: true; value: string } | { ok: false; message: string } {
  const m = VAULT_REF_PATTERN.exec(text);
  if (!m) return { ok: true, value: text };
  const [, item, field] = m as unknown as [string, string, string];
  if (!vault.isAllowed(item, api)) return { ok: false, message: `vault item ${item} may not be sent to API ${api}; allow it in the vault first` };
  const revealed = vault.reveal(item, field);
  return revealed.ok ? { ok: true, value: revealed.value } : { ok: false, message: `${item}/${field} for ${api} is unavailable: ${revealed.message}` };
}
