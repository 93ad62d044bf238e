/**
 * A real OAuth 2.0 authorization server and a resource server it protects,
 * both on loopback, for the sign-in tests: oidc-provider (the registry's
 * package) with one public native client (no secret, PKCE required, loopback
 * redirects on any port), refresh tokens, the device flow, revocation and
 * RFC 8414 / OpenID discovery; its own login and consent pages are what the
 * tests drive in Chromium.
 *
 * oidc-provider never answers `slow_down` (RFC 8628 leaves polling limits to
 * the deployer), so this server adds the RFC's rule as a provider middleware:
 * a device-code poll sooner than the interval it announced (1 s here, instead
 * of the default 5) is answered `slow_down`, and `slowDownNextPoll()` makes
 * the next poll get one whatever its timing, as a busy server would.
 *
 * The resource server (`/me`, `/notes`) looks each bearer token up in the
 * provider (expired, revoked and wrong-audience tokens get 401) and records
 * the tokens it saw, so tests know every access token that went over the wire.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import Provider, { type KoaContext } from "oidc-provider";
import { json, startRecordingServer, type RecordingServer } from "./recording-server.ts";

export const PUBLIC_CLIENT_ID = "workbench-test";
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
export const NOTES_SCOPES = { "notes:read": "Read your notes", "notes:write": "Write notes" };

export interface OAuthServer {
  issuer: string;
  provider: Provider;
  resource: RecordingServer;
  /** The protected API's spec: an oauth2 authorizationCode flow with the provider's URLs. */
  spec: object;
  /** Every access token the resource server was shown, in order. */
  bearerTokens: string[];
  /** Every grant the token endpoint answered, by grant type. */
  grants: string[];
  /** Every device-code poll's answer (`authorization_pending`, `slow_down`, `ok`, ...). */
  devicePolls: string[];
  /** Every access and refresh token the provider issued: the canaries no surface may show. */
  issuedTokens: string[];
  /** Every token request's form, as sent (to replay one). */
  tokenRequests: URLSearchParams[];
  /** Device code lifetime in seconds for codes issued from now on. */
  setDeviceCodeTtl(seconds: number): void;
  /** Access token lifetime in seconds for tokens issued from now on. */
  setAccessTokenTtl(seconds: number): void;
  slowDownNextPoll(): void;
  /** Revokes (destroys) a token at the provider as an administrator would. */
  revokeAccessToken(token: string): Promise<void>;
  revokeRefreshToken(token: string): Promise<void>;
  close(): Promise<void>;
}

const DEVICE_INTERVAL_S = 1;

export async function startOAuthServer(): Promise<OAuthServer> {
  const resourceTokens: string[] = [];
  const grants: string[] = [];
  const devicePolls: string[] = [];
  const issuedTokens: string[] = [];
  const tokenRequests: URLSearchParams[] = [];
  let accessTokenTtl = 300;
  let deviceCodeTtl = 600;
  let slowDownNext = false;
  const lastPoll = new Map<string, number>();

  const server: Server = createServer();
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // The resource server starts first: the provider needs its URL as the tokens' audience.
  const providerRef: { current?: Provider } = {};
  const resource = await startRecordingServer(async (req, res) => {
    const header = String(req.headers.authorization ?? "");
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    if (token) resourceTokens.push(token);
    const found = token ? await providerRef.current!.AccessToken.find(token) : undefined;
    if (!found || found.isExpired) {
      return json(res, 401, { error: "invalid_token" }, { "www-authenticate": 'Bearer error="invalid_token"' });
    }
    const scopes = (found.scope ?? "").split(" ").filter(Boolean);
    if (req.path === "/me" && req.method === "GET") return json(res, 200, { sub: found.accountId, scopes });
    if (req.path === "/notes" && req.method === "POST") {
      if (!scopes.includes("notes:write")) return json(res, 403, { error: "insufficient_scope" });
      return json(res, 201, { id: 1, by: found.accountId, text: JSON.parse(req.text || "{}").text ?? null });
    }
    json(res, 404, { error: "not found" });
  });
  const audience = `${resource.url}/`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: PUBLIC_CLIENT_ID,
        application_type: "native",
        token_endpoint_auth_method: "none",
        redirect_uris: ["http://127.0.0.1/oauth/callback"],
        grant_types: ["authorization_code", "refresh_token", DEVICE_GRANT],
        response_types: ["code"],
      },
    ],
    scopes: ["openid", "offline_access", ...Object.keys(NOTES_SCOPES)],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: Object.keys(NOTES_SCOPES).join(" "), accessTokenFormat: "opaque", accessTokenTTL: accessTokenTtl }),
      },
    },
    // Refresh tokens for every sign-in, without asking for offline_access; rotated on each use.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    ttl: { AccessToken: () => accessTokenTtl, DeviceCode: () => deviceCodeTtl, Grant: () => 3600, RefreshToken: () => 3600, Session: () => 3600, Interaction: () => 600, IdToken: () => 600, AuthorizationCode: () => 60 },
    cookies: { keys: ["test-cookie-key-not-secret"] },
  });

  providerRef.current = provider;
  provider.use(async (ctx: KoaContext, next) => {
    if (ctx.path === "/token" && ctx.method === "POST") {
      const body = await readForm(ctx);
      tokenRequests.push(body);
      const grantType = body.get("grant_type") ?? "";
      if (grantType === DEVICE_GRANT) {
        const code = body.get("device_code") ?? "";
        const now = Date.now();
        const previous = lastPoll.get(code);
        lastPoll.set(code, now);
        if (slowDownNext || (previous !== undefined && now - previous < DEVICE_INTERVAL_S * 1000 - 50)) {
          slowDownNext = false;
          devicePolls.push("slow_down");
          ctx.status = 400;
          ctx.body = { error: "slow_down", error_description: "you are polling too quickly" };
          return;
        }
      }
      await next();
      const answer = ctx.body as { error?: string; access_token?: string; refresh_token?: string } | undefined;
      for (const token of [answer?.access_token, answer?.refresh_token]) if (token) issuedTokens.push(token);
      if (grantType === DEVICE_GRANT) devicePolls.push(answer?.error ?? (ctx.status === 200 ? "ok" : String(ctx.status)));
      if (ctx.status === 200) grants.push(grantType);
      return;
    }
    await next();
    // Announce the 1 s polling interval (oidc-provider's answer carries none, which means 5 s).
    if (ctx.path === "/device/auth" && ctx.status === 200 && ctx.body && typeof ctx.body === "object") (ctx.body as Record<string, unknown>).interval = DEVICE_INTERVAL_S;
  });
  server.on("request", provider.callback());

  const spec = {
    openapi: "3.0.3",
    info: { title: "Notes", version: "1" },
    servers: [{ url: resource.url }],
    components: {
      securitySchemes: {
        notesAuth: {
          type: "oauth2",
          flows: { authorizationCode: { authorizationUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, scopes: NOTES_SCOPES } },
        },
      },
    },
    security: [{ notesAuth: ["notes:read"] }],
    paths: {
      "/me": { get: { operationId: "me", responses: { "200": { description: "who the token is for" } } } },
      "/notes": {
        post: {
          operationId: "createNote",
          security: [{ notesAuth: ["notes:write"] }],
          requestBody: { content: { "application/json": { schema: { type: "object", properties: { text: { type: "string" } } } } } },
          responses: { "201": { description: "created" } },
        },
      },
    },
  };

  return {
    issuer,
    provider,
    resource,
    spec,
    bearerTokens: resourceTokens,
    grants,
    devicePolls,
    issuedTokens,
    tokenRequests,
    setDeviceCodeTtl: (seconds) => void (deviceCodeTtl = seconds),
    setAccessTokenTtl: (seconds) => void (accessTokenTtl = seconds),
    slowDownNextPoll: () => void (slowDownNext = true),
    async revokeAccessToken(token) {
      await (await provider.AccessToken.find(token, { ignoreExpiration: true }))?.destroy();
    },
    async revokeRefreshToken(token) {
      await (await provider.RefreshToken.find(token, { ignoreExpiration: true }))?.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await resource.close();
    },
  };
}

/**
 * The token request's form. The provider's own parser then takes it from
 * `ctx.request.body` (its documented path for an upstream body parser).
 */
async function readForm(ctx: KoaContext): Promise<URLSearchParams> {
  const req = (ctx as unknown as { req: IncomingMessage }).req;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  ctx.request.body = Object.fromEntries(form);
  return form;
}
