/**
 * The owner of people's sign-ins for one workbench: starts them (browser or
 * device), hands the proxy a current access token for each call (refreshing
 * an expired one first, and once more when the API answers 401), marks a
 * sign-in expired when the server refuses to refresh it, reports who is
 * signed in to what, and signs out (RFC 7009 revocation where the server
 * offers it, then deletion).
 *
 * Tokens live only in the vault (grants.ts); this class keeps nothing but
 * the sign-ins in progress and the refreshes in flight, so the app, `serve`
 * and the CLI on one data directory see the same sign-in.
 */
import { inlineSecurityScheme, type AuthConfig } from "../../../shared/api-config.ts";
import type { SignInStart, SignInView } from "../../../shared/contract.ts";
import type { WorkbenchEvent } from "../../../shared/events.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { sameSecret } from "../common/same-secret.ts";
import type { SchemeInUse, SignInTokens } from "../proxy/credentials.ts";
import type { ApiTarget } from "../proxy/types.ts";
import type { ApiRegistry } from "../specs/registry.ts";
import type { Vault } from "../vault/vault.ts";
import { authorizationRequest, newState } from "./browser.ts";
import { pollForTokens, requestDeviceCode, type PollEvent } from "./device.ts";
import { deleteSignIn, readSignIn, writeRecord, writeSignIn, type StoredSignIn } from "./grants.ts";
import { startLoopbackRedirect, type CallbackOutcome } from "./loopback.ts";
import { revokeSignIn } from "./revoke.ts";
import { findAuthorizationServer } from "./server.ts";
import { signInSetup, type SignInMethod, type SignInSetup } from "./setup.ts";
import { clientSide, needsRefresh, refreshSignIn, signInFrom, type ClientSide } from "./tokens.ts";
import type * as oauth from "oauth4webapi";

export interface SignInsOptions {
  vault: Vault;
  registry: ApiRegistry;
  /** The API as calls see it (refreshing the directory first). */
  target(api: string): Promise<ApiTarget | undefined>;
  publish(event: WorkbenchEvent): void;
  log(message: string): void;
  fetch?: typeof fetch;
  now?: () => number;
}

export interface StartOptions {
  /** Scopes the person picked; default: the API's configured scopes, else those its operations require. */
  scopes?: string[];
  /** Saved as the API's client id (auth.username) once the sign-in succeeds. */
  clientId?: string;
  /**
   * Where to sign in, for an API whose spec declares no scheme to sign in
   * with (GitHub's does not): saved as the API's inline oauth2 scheme once
   * the sign-in succeeds.
   */
  endpoints?: { authorizationUrl?: string; deviceAuthorizationUrl?: string; tokenUrl?: string };
  /** How long the sign-in may wait for the person (default 10 minutes). */
  timeoutMs?: number;
}

export interface BrowserStartOptions extends StartOptions {
  /** Opens the URL in the system browser (the face's hook); when absent, the caller shows the URL. */
  open?: (url: string) => Promise<void> | void;
}

export interface DeviceStartOptions extends StartOptions {
  onPoll?: (event: PollEvent) => void;
}

export type SignInOutcome = { ok: true; message: string; view: SignInView } | { ok: false; message: string };
export type Started = { start: Extract<SignInStart, { ok: true }>; done: Promise<SignInOutcome> } | { start: Extract<SignInStart, { ok: false }>; done?: undefined };

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

interface HostedWait {
  state: string;
  api: string;
  onCallback(params: URLSearchParams): Promise<CallbackOutcome>;
}

export class SignIns implements SignInTokens {
  readonly #opts: SignInsOptions;
  readonly #now: () => number;
  readonly #refreshing = new Map<string, Promise<{ token: string; label: string } | { refused: string; details?: JsonValue }>>();
  readonly #inProgress = new Map<string, AbortController>();
  readonly #hosted = new Map<string, HostedWait>();
  #hostedRedirect: string | undefined;

  constructor(opts: SignInsOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** A loopback server of ours (`workbench serve`, the app's) receives redirects at this URL; undefined: each sign-in opens its own listener. */
  useHostedRedirect(uri: string | undefined): void {
    this.#hostedRedirect = uri;
  }

  // ---- for the proxy ------------------------------------------------------

  async accessToken(target: ApiTarget, _scheme: SchemeInUse, rejected?: string): Promise<{ token: string; label: string } | { refused: string; details?: JsonValue }> {
    const api = target.name;
    let read = readSignIn(this.#opts.vault, api);
    // Another process may have signed in, refreshed or signed out since this vault was read.
    if (read.kind !== "ok" || rejected !== undefined || needsRefresh(read.signIn.record, this.#now())) {
      this.#opts.vault.reload();
      read = readSignIn(this.#opts.vault, api);
    }
    if (read.kind === "none") return signInRequired(api, `you are not signed in to ${api}`);
    if (read.kind === "unreadable") return signInRequired(api, `the sign-in to ${api} cannot be read (${read.why})`);
    const { signIn } = read;
    const where = target.boundBaseUrl ?? target.baseUrl;
    if (signIn.record.baseUrl !== where) return signInRequired(api, `the sign-in to ${api} was made for ${signIn.record.baseUrl}, and the API now points at ${where}`);
    if (signIn.record.expired) return signInRequired(api, `the sign-in to ${api} has expired (${signIn.record.expired.why})`);
    const label = `${api}/oauth.access_token`;
    if (rejected !== undefined && rejected !== signIn.accessToken) return { token: signIn.accessToken, label }; // refreshed meanwhile
    if (rejected === undefined && !needsRefresh(signIn.record, this.#now())) return { token: signIn.accessToken, label };
    // One refresh per API at a time: concurrent calls wait for the same one.
    let pending = this.#refreshing.get(api);
    if (!pending) {
      pending = this.#refresh(target, signIn).finally(() => this.#refreshing.delete(api));
      this.#refreshing.set(api, pending);
    }
    return pending;
  }

  describe(target: ApiTarget): string {
    const read = readSignIn(this.#opts.vault, target.name);
    if (read.kind !== "ok") return `OAuth2 sign-in to ${target.name}: not signed in`;
    const { who, scopes } = read.signIn.record;
    return `OAuth2 sign-in to ${target.name}${who ? ` as ${who}` : ""}, scopes: ${scopes.length ? scopes.join(" ") : "(none)"}`;
  }

  async #refresh(target: ApiTarget, signIn: StoredSignIn): Promise<{ token: string; label: string } | { refused: string; details?: JsonValue }> {
    const api = target.name;
    const side = this.#clientSide(target.config.auth, target.name, signIn.record.clientId);
    const result = await refreshSignIn(signIn, side, this.#now(), this.#opts.fetch);
    if (!result.ok) {
      this.#opts.log(`oauth: refreshing the sign-in to ${api} failed: ${result.why}`);
      if (!result.final) return { refused: `the sign-in to ${api} could not be renewed just now (${result.why}); try again` };
      // Another process (the CLI, the app) may have renewed it a moment ago with the same refresh token, which rotation then retired.
      this.#opts.vault.reload();
      const now = readSignIn(this.#opts.vault, api);
      if (now.kind === "ok" && !now.signIn.record.expired && now.signIn.refreshToken !== signIn.refreshToken) return { token: now.signIn.accessToken, label: `${api}/oauth.access_token` };
      writeRecord(this.#opts.vault, { ...signIn.record, expired: { at: new Date(this.#now()).toISOString(), why: result.why } });
      this.#opts.publish({ type: "auth.changed", api, ok: false, message: `The sign-in to ${api} has expired.` });
      return signInRequired(api, `the sign-in to ${api} has expired (${result.why})`);
    }
    const written = writeSignIn(this.#opts.vault, result.signIn, true);
    if (!written.ok) return { refused: `the renewed sign-in to ${api} could not be stored: ${written.message}` };
    this.#opts.log(`oauth: renewed the access token of ${api}`);
    return { token: result.signIn.accessToken, label: `${api}/oauth.access_token` };
  }

  #clientSide(auth: AuthConfig | undefined, api: string, clientId: string): ClientSide {
    return clientSide(clientId, clientSecret(auth, this.#opts.vault, api));
  }

  // ---- signing in ---------------------------------------------------------

  async startBrowser(api: string, opts: BrowserStartOptions = {}): Promise<Started> {
    const prepared = await this.#prepare(api, opts, "authorizationCode");
    if (!prepared.ok) return { start: { ok: false, message: prepared.message } };
    const { target, setup, as, side, scopes } = prepared;
    if (!as.authorization_endpoint) return refusal(`${api}'s authorization server offers no browser sign-in (no authorization endpoint); try the device sign-in (--device)`);
    const controller = this.#begin(api);
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    try {
      let request!: Awaited<ReturnType<typeof authorizationRequest>>;
      const finish = async (params: URLSearchParams): Promise<CallbackOutcome> => {
        const tokens = await request.exchange(params);
        const stored = this.#store(target, setup, as, tokens, "authorizationCode", scopes, opts.clientId);
        return { ok: true, message: `Signed in to ${api}${stored.record.who ? ` as ${stored.record.who}` : ""}.` };
      };
      let redirectUri: string;
      let done: Promise<CallbackOutcome>;
      let stopListening: () => void;
      if (this.#hostedRedirect) {
        redirectUri = this.#hostedRedirect;
        request = await authorizationRequest(as, side, redirectUri, scopes, newState(), this.#opts.fetch);
        const wait: HostedWait = { state: request.state, api, onCallback: finish };
        let settle!: (outcome: CallbackOutcome) => void;
        done = new Promise((resolve) => (settle = resolve));
        wait.onCallback = async (params) => {
          const outcome = await finish(params).catch((err: unknown): CallbackOutcome => ({ ok: false, message: messageOf(err) }));
          settle(outcome);
          return outcome;
        };
        this.#hosted.set(request.state, wait);
        const timer = setTimeout(() => settle({ ok: false, message: `no answer from the browser within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
        timer.unref();
        stopListening = () => {
          clearTimeout(timer);
          this.#hosted.delete(request.state);
          settle({ ok: false, message: "the sign-in was cancelled" });
        };
        void done.finally(stopListening);
      } else {
        // The listener knows the state before the request (which needs the listener's port) is built.
        const state = newState();
        const listener = await startLoopbackRedirect(state, finish, timeoutMs);
        redirectUri = listener.redirectUri;
        request = await authorizationRequest(as, side, redirectUri, scopes, state, this.#opts.fetch);
        done = listener.done.catch((err: unknown): CallbackOutcome => ({ ok: false, message: messageOf(err) }));
        stopListening = () => listener.close();
      }
      controller.signal.addEventListener("abort", stopListening, { once: true });
      let opened = false;
      if (opts.open) {
        try {
          await opts.open(request.url);
          opened = true;
        } catch (err) {
          this.#opts.log(`oauth: could not open the system browser: ${messageOf(err)}`);
        }
      }
      return { start: { ok: true, kind: "browser", url: request.url, opened }, done: this.#settle(api, controller, done) };
    } catch (err) {
      this.#end(api, controller);
      return refusal(`the sign-in to ${api} could not start: ${messageOf(err)}`);
    }
  }

  /** The `/oauth/callback` of a server of ours: finishes the sign-in whose state matches, refuses anything else. */
  async completeHosted(params: URLSearchParams): Promise<CallbackOutcome & { status: number }> {
    const given = params.get("state") ?? "";
    const wait = [...this.#hosted.values()].find((w) => sameSecret(given, w.state));
    if (!wait) return { ok: false, status: 400, message: "This answer does not belong to a sign-in the workbench is waiting for (it was already used, or never started here), so nothing was done with it." };
    this.#hosted.delete(wait.state);
    const outcome = await wait.onCallback(params);
    return { ...outcome, status: outcome.ok ? 200 : 400 };
  }

  async startDevice(api: string, opts: DeviceStartOptions = {}): Promise<Started> {
    const prepared = await this.#prepare(api, opts, "deviceAuthorization");
    if (!prepared.ok) return { start: { ok: false, message: prepared.message } };
    const { target, setup, as, side, scopes } = prepared;
    if (!as.device_authorization_endpoint) return refusal(`${api}'s authorization server offers no device sign-in (no device authorization endpoint); sign in with the browser instead`);
    const controller = this.#begin(api);
    try {
      const code = await requestDeviceCode(as, side, scopes, this.#now(), this.#opts.fetch);
      const timer = setTimeout(() => controller.abort(), Math.min(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, code.expiresAt - this.#now() + 1000));
      timer.unref();
      const done = pollForTokens(as, side, code, { now: this.#now, signal: controller.signal, ...(opts.onPoll ? { onPoll: opts.onPoll } : {}), ...(this.#opts.fetch ? { fetch: this.#opts.fetch } : {}) })
        .then((tokens): CallbackOutcome => {
          const stored = this.#store(target, setup, as, tokens, "deviceAuthorization", scopes, opts.clientId);
          return { ok: true, message: `Signed in to ${api}${stored.record.who ? ` as ${stored.record.who}` : ""}.` };
        })
        .catch((err: unknown): CallbackOutcome => ({ ok: false, message: messageOf(err) }))
        .finally(() => clearTimeout(timer));
      const start: SignInStart = {
        ok: true,
        kind: "device",
        verificationUri: code.verificationUri,
        ...(code.verificationUriComplete ? { verificationUriComplete: code.verificationUriComplete } : {}),
        userCode: code.userCode,
        expiresAt: new Date(code.expiresAt).toISOString(),
      };
      return { start, done: this.#settle(api, controller, done) };
    } catch (err) {
      this.#end(api, controller);
      return refusal(`the sign-in to ${api} could not start: ${messageOf(err)}`);
    }
  }

  /** Stops a sign-in in progress (a person closed the dialog, the process is closing). */
  cancel(api: string): void {
    this.#inProgress.get(api)?.abort();
  }

  close(): void {
    for (const controller of this.#inProgress.values()) controller.abort();
  }

  async #prepare(api: string, opts: StartOptions, method: SignInMethod) {
    const registered = await this.#opts.target(api);
    if (!registered) return { ok: false as const, message: `no API named ${api} is registered` };
    const withEndpoints = inlineScheme(registered, opts.endpoints);
    if (!withEndpoints.ok) return withEndpoints;
    const target = withEndpoints.target;
    this.#opts.vault.reload();
    const found = signInSetup(target, this.#opts.vault, opts.clientId);
    if (!found.ok) return found;
    const setup = found.setup;
    const server = await findAuthorizationServer(setup, { ...(this.#opts.fetch ? { fetch: this.#opts.fetch } : {}), log: this.#opts.log });
    if (!server.ok) return server;
    const as = server.as;
    let scopes = opts.scopes ?? setup.defaultScopes;
    // An OpenID Connect server tells who signed in through an ID token: ask for one when it offers it.
    if (server.discovered && as.scopes_supported?.includes("openid") && !scopes.includes("openid")) scopes = ["openid", ...scopes];
    this.#opts.log(`oauth: ${api}: signing in (${method}) at ${as.issuer}${server.discovered ? " (from its metadata)" : " (from the spec's URLs)"}`);
    return { ok: true as const, target, setup, as, side: clientSide(setup.clientId, setup.clientSecret), scopes };
  }

  #store(target: ApiTarget, setup: SignInSetup, as: oauth.AuthorizationServer, tokens: oauth.TokenEndpointResponse, method: SignInMethod, scopes: string[], clientIdGiven?: string): StoredSignIn {
    const stored = signInFrom(tokens, { api: target.name, method, as, clientId: setup.clientId, baseUrl: target.boundBaseUrl ?? target.baseUrl, requestedScopes: scopes, now: this.#now() });
    const written = writeSignIn(this.#opts.vault, stored);
    if (!written.ok) throw new Error(`the tokens could not be stored in the vault: ${written.message}`);
    this.#saveConfig(target.name, setup, clientIdGiven, target.config.auth?.inline);
    return stored;
  }

  /** Keeps what made the sign-in work (the scheme picked from the spec, the client id given) as the API's settings. */
  #saveConfig(api: string, setup: SignInSetup, clientIdGiven?: string, inline?: AuthConfig["inline"]): void {
    const entry = this.#opts.registry.entry(api);
    if (!entry) return;
    const auth: AuthConfig = { ...(entry.config.auth ?? {}) };
    let changed = false;
    if (inline && JSON.stringify(auth.inline) !== JSON.stringify(inline)) {
      auth.inline = inline;
      changed = true;
    }
    if (setup.pickedScheme && !auth.scheme && !auth.inline) {
      auth.scheme = setup.pickedScheme;
      changed = true;
    }
    if (clientIdGiven && auth.username !== clientIdGiven) {
      auth.username = clientIdGiven;
      changed = true;
    }
    if (!changed) return;
    const updated = this.#opts.registry.update(api, { config: { ...entry.config, auth } });
    if (!updated.ok) this.#opts.log(`oauth: the settings of ${api} could not be saved: ${updated.error.message}`);
  }

  #begin(api: string): AbortController {
    this.#inProgress.get(api)?.abort();
    const controller = new AbortController();
    this.#inProgress.set(api, controller);
    this.#opts.publish({ type: "auth.changed", api });
    return controller;
  }

  #end(api: string, controller: AbortController): void {
    if (this.#inProgress.get(api) === controller) this.#inProgress.delete(api);
  }

  async #settle(api: string, controller: AbortController, done: Promise<CallbackOutcome>): Promise<SignInOutcome> {
    const outcome = await done;
    this.#end(api, controller);
    this.#opts.log(`oauth: sign-in to ${api}: ${outcome.ok ? "done" : `failed: ${outcome.message}`}`);
    this.#opts.publish({ type: "auth.changed", api, ok: outcome.ok, message: outcome.message });
    if (!outcome.ok) return { ok: false, message: outcome.message };
    const view = (await this.status()).find((v) => v.api === api);
    return { ok: true, message: outcome.message, view: view! };
  }

  // ---- status and signing out ---------------------------------------------

  /** Every API a person can sign in to, or has signed in to. */
  async status(): Promise<SignInView[]> {
    this.#opts.vault.reload();
    const views: SignInView[] = [];
    for (const entry of this.#opts.registry.list()) {
      const target = await this.#opts.target(entry.name);
      if (!target) continue;
      const setup = signInSetup(target, this.#opts.vault);
      const read = readSignIn(this.#opts.vault, entry.name);
      const takesSignIn = setup.ok || !setup.takesNoSignIn;
      if (!takesSignIn && read.kind === "none") continue;
      views.push(this.#view(entry.name, setup, read, target));
    }
    return views;
  }

  #view(api: string, setup: ReturnType<typeof signInSetup>, read: ReturnType<typeof readSignIn>, target: ApiTarget): SignInView {
    const base = {
      api,
      availableScopes: setup.ok ? setup.setup.scopes : {},
      defaultScopes: setup.ok ? setup.setup.defaultScopes : [],
      ready: setup.ok ? ({ ok: true } as const) : ({ ok: false, message: setup.message } as const),
    };
    const again = `sign in again: workbench auth login ${api}, or Sign in in the API's settings`;
    if (this.#inProgress.has(api)) return { ...base, state: "signing_in", scopes: [] };
    if (read.kind === "none") return { ...base, state: "signed_out", scopes: [] };
    if (read.kind === "unreadable") return { ...base, state: "unreadable", scopes: [], problem: `${read.why}; ${again}` };
    const r = read.signIn.record;
    const facts = { scopes: r.scopes, signedInAt: r.signedInAt, method: r.method, ...(r.who ? { who: r.who } : {}), ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}) };
    if (r.expired) return { ...base, ...facts, state: "expired", problem: `${r.expired.why}; ${again}` };
    const where = target.boundBaseUrl ?? target.baseUrl;
    if (r.baseUrl !== where) return { ...base, ...facts, state: "expired", problem: `it was made for ${r.baseUrl} and the API now points at ${where}; ${again}` };
    return { ...base, ...facts, state: "signed_in" };
  }

  /** Revokes the tokens where the server offers RFC 7009, then deletes them; says which happened. */
  async logout(api: string): Promise<{ ok: boolean; message: string }> {
    this.cancel(api);
    this.#opts.vault.reload();
    const read = readSignIn(this.#opts.vault, api);
    if (read.kind === "none") return { ok: true, message: `not signed in to ${api}; nothing to do` };
    let said = "";
    if (read.kind === "ok") {
      const target = await this.#opts.target(api);
      const side = this.#clientSide(target?.config.auth, api, read.signIn.record.clientId);
      said = await revokeSignIn(read.signIn, side, this.#opts.fetch, this.#opts.log);
    }
    const deleted = deleteSignIn(this.#opts.vault, api);
    if (!deleted.ok) return { ok: false, message: `${said}the tokens could not be deleted: ${deleted.message}` };
    this.#opts.publish({ type: "auth.changed", api, ok: true, message: `Signed out of ${api}.` });
    return { ok: true, message: `signed out of ${api}: ${said}the tokens were deleted from the vault` };
  }
}

function signInRequired(api: string, why: string): { refused: string; details: JsonValue } {
  return {
    refused: `${why}; sign in with \`workbench auth login ${api}\` (or Sign in in the API's settings)`,
    details: { reason: "sign_in_required", api },
  };
}

function refusal(message: string): Started {
  return { start: { ok: false, message } };
}

function clientSecret(auth: AuthConfig | undefined, vault: Vault, api: string): string | undefined {
  const ref = auth?.credential;
  const m = ref ? /^vault:([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(ref) : null;
  if (!m || !vault.isAllowed(m[1]!, api)) return undefined;
  const revealed = vault.reveal(m[1]!, m[2]!);
  return revealed.ok ? revealed.value : undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The API with the sign-in endpoints given on the command line as its inline scheme; refused when its spec already says where. */
function inlineScheme(target: ApiTarget, endpoints: StartOptions["endpoints"]): { ok: true; target: ApiTarget } | { ok: false; message: string } {
  if (!endpoints || Object.values(endpoints).every((v) => v === undefined)) return { ok: true, target };
  const auth = target.config.auth ?? {};
  if (auth.scheme) return { ok: false, message: `${target.name} signs in with the spec's scheme ${auth.scheme}, which says where; endpoints given here are for an API whose spec declares none` };
  const { authorizationUrl, deviceAuthorizationUrl, tokenUrl } = endpoints;
  if (!tokenUrl) return { ok: false, message: "give the token URL too (--token-url): where the code is exchanged for tokens" };
  if (!authorizationUrl && !deviceAuthorizationUrl) return { ok: false, message: "give where to sign in: --authorization-url (browser) or --device-authorization-url (device)" };
  const parsed = inlineSecurityScheme.safeParse({
    type: "oauth2",
    flows: {
      ...(authorizationUrl ? { authorizationCode: { authorizationUrl, tokenUrl, scopes: {} } } : {}),
      ...(deviceAuthorizationUrl ? { deviceAuthorization: { deviceAuthorizationUrl, tokenUrl, scopes: {} } } : {}),
    },
  });
  if (!parsed.success) return { ok: false, message: `the sign-in endpoints are not usable: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` };
  return { ok: true, target: { ...target, config: { ...target.config, auth: { ...auth, inline: parsed.data } } } };
}
