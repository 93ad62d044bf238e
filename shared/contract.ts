/**
 * The one contract between the renderer and the host. Each channel maps to a
 * zod schema for its request and a type for its reply. The Electron preload
 * exposes one method per channel from it, the HTTP bridge of `workbench serve`
 * serves the same channels as `POST /api/<channel>`, and the host validates
 * every request against the schema before calling its handler.
 */
import { z } from "zod";
import { apiConfig, type ApiConfig } from "./api-config.ts";
import type { Envelope } from "./envelope.ts";
import { agentLimitsPatch, API_LIMIT_BOUNDS, checkLimit, type AgentLimitsView } from "./limits.ts";
import type { JsonSchema, Operation, RepairWarning, SecurityScheme, ServerInfo } from "./artifact.ts";
import type { AllowRule, CallRecord, CodeRun, PendingDecision, RunSummary } from "./runs.ts";

/** A channel: the request's schema, and (as a phantom) the reply's type. */
export interface Channel<Req extends z.ZodType, Reply> {
  request: Req;
  reply?: Reply;
}
function channel<Reply>() {
  return <Req extends z.ZodType>(request: Req): Channel<Req, Reply> => ({ request });
}

const empty = z.object({}).strict();
const apiName = z.string().min(1).max(100);
const runId = z.string().regex(/^run_[A-Za-z0-9_-]+$/, "must be a run id like run_abc123");

/** An API's config as the UI sends it: its limits within the bounds `workbench api set` enforces too. */
const boundedApiConfig = apiConfig.superRefine((config, ctx) => {
  for (const key of ["timeoutMs", "maxResponseBytes"] as const) {
    const checked = checkLimit(API_LIMIT_BOUNDS[key], config[key]);
    if (!checked.ok) ctx.addIssue({ code: "custom", path: [key], message: checked.message });
  }
});

export const specSource = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), text: z.string().max(60 * 1024 * 1024), filename: z.string().optional() }).strict(),
  z.object({ kind: z.literal("url"), url: z.string().url() }).strict(),
]);
export type SpecSource = z.infer<typeof specSource>;

export interface ApiSummary {
  name: string;
  title: string;
  version: string;
  openapi: string;
  operationCount: number;
  baseUrl: string;
  source: { kind: string; location?: string };
  config: ApiConfig;
  warningCount: number;
  tags: { name: string; description?: string }[];
  securitySchemes: Record<string, SecurityScheme>;
}

/** One row of the operations list: enough to browse and filter 1,000+ operations. */
export interface OperationRow {
  id: string;
  method: string;
  path: string;
  summary?: string;
  tags: string[];
  deprecated: boolean;
}

export interface IngestPreview {
  ok: boolean;
  title?: string;
  version?: string;
  openapi?: string;
  operations?: number;
  warnings: RepairWarning[];
  error?: { code: string; pointer: string; message: string };
  /** A valid API name derived from the title. */
  suggestedName?: string;
  servers?: ServerInfo[];
  securitySchemes?: string[];
}

export interface VaultItemView {
  name: string;
  allowApis: string[];
  /** `hostOnly`: part of a person's sign-in (tokens), never shown and kept by the sign-in itself. */
  fields: { name: string; problem?: string; hostOnly?: boolean }[];
}

export interface ConnectInfo {
  mcpUrl: string;
  token: string;
  /** `workbench mcp --data-dir ...`: for clients that launch a process. */
  stdioCommand: string[];
  /** Environment the stdio command needs (the app's executable runs the CLI as Node with ELECTRON_RUN_AS_NODE=1). */
  stdioEnv?: Record<string, string>;
  snippets: { claudeDesktop: string; claudeCode: string; cursor: string };
}

export interface SavedProgram {
  id: string;
  name: string;
  code: string;
  policy: "read_only" | "all";
}

export interface RunDetail {
  run: CodeRun;
  calls: CallRecord[];
  pending?: PendingDecision;
}

export type Ack = { ok: true; message?: string } | { ok: false; message: string };

/** What a window can be asked to show from outside it: a run, or the approvals inbox (at one run's waiting call). */
export const openTarget = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), runId }).strict(),
  z.object({ kind: z.literal("inbox"), runId: runId.optional() }).strict(),
]);
export type OpenTarget = z.infer<typeof openTarget>;

/** One open tab, as the desktop app remembers it between launches. */
export const tabRef = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("operation"), api: apiName, operationId: z.string().min(1).max(500) }).strict(),
  z.object({ kind: z.literal("program"), programId: z.string().min(1).max(100) }).strict(),
  z.object({ kind: z.literal("run"), runId }).strict(),
  z.object({ kind: z.literal("api"), api: apiName }).strict(),
  z.object({ kind: z.enum(["inbox", "history", "vault", "connect", "settings"]) }).strict(),
]);
export type TabRef = z.infer<typeof tabRef>;
export const uiSession = z.object({ tabs: z.array(tabRef).max(100), active: z.number().int().min(0).max(99).optional() }).strict();
export type UiSession = z.infer<typeof uiSession>;
/** A person's OAuth2 sign-in to one API, as `workbench auth status` and the app show it (never a token). */
export interface SignInView {
  api: string;
  state: "signed_in" | "expired" | "signed_out" | "signing_in" | "unreadable";
  who?: string;
  scopes: string[];
  /** When the access token expires (it is renewed with the refresh token when it does). */
  expiresAt?: string;
  signedInAt?: string;
  method?: "authorizationCode" | "deviceAuthorization";
  /** Why the sign-in cannot be used (expired, unreadable), and how to sign in again. */
  problem?: string;
  /** Scopes the spec lists, with their descriptions: what the person picks from. */
  availableScopes: Record<string, string>;
  /** Scopes asked for unless the person picks others. */
  defaultScopes: string[];
  /** Whether a sign-in can start here (a client id is configured), and if not, why. */
  ready: { ok: true } | { ok: false; message: string };
}

export type SignInStart =
  | { ok: true; kind: "browser"; url: string; opened: boolean }
  | { ok: true; kind: "device"; verificationUri: string; verificationUriComplete?: string; userCode: string; expiresAt: string }
  | { ok: false; message: string };

export const contract = {
  "app.info": channel<{ version: string; dataDir: string; node: string; shell: "electron" | "browser" }>()(empty),
  /** Asks every open window to show a run or the inbox (`workbench open <run>`, a codemode-workbench:// link). */
  "app.open": channel<Ack>()(z.object({ target: openTarget }).strict()),
  /** The tabs open when the app last closed; null where nothing keeps them (a browser tab of `workbench serve`). */
  "ui.session.get": channel<UiSession | null>()(empty),
  "ui.session.save": channel<Ack>()(uiSession),

  "apis.list": channel<ApiSummary[]>()(empty),
  "apis.operations": channel<OperationRow[]>()(z.object({ api: apiName }).strict()),
  "apis.operation": channel<Operation>()(z.object({ api: apiName, id: z.string().min(1) }).strict()),
  /** One component schema by name (`#/components/schemas/<name>`), for schema trees that expand refs lazily; null when unknown. */
  "apis.schema": channel<JsonSchema | null>()(z.object({ api: apiName, name: z.string().min(1).max(1000) }).strict()),
  "apis.warnings": channel<RepairWarning[]>()(z.object({ api: apiName }).strict()),
  "apis.declarations": channel<{ dts: string }>()(empty),
  "apis.preview": channel<IngestPreview>()(z.object({ source: specSource }).strict()),
  "apis.add": channel<Ack>()(z.object({ name: apiName, source: specSource, config: boundedApiConfig.optional() }).strict()),
  "apis.update": channel<Ack>()(z.object({ name: apiName, config: boundedApiConfig }).strict()),
  "apis.remove": channel<Ack>()(z.object({ name: apiName }).strict()),

  "runs.execute": channel<Envelope>()(z.object({ code: z.string().max(1024 * 1024), policy: z.enum(["read_only", "all"]) }).strict()),
  "runs.search": channel<Envelope>()(z.object({ code: z.string().max(1024 * 1024) }).strict()),
  "runs.list": channel<RunSummary[]>()(
    z.object({
      status: z.array(z.enum(["running", "pending", "completed", "failed", "cancelled", "interrupted"])).optional(),
      source: z.enum(["cli", "ui", "mcp"]).optional(),
      api: z.string().optional(),
      text: z.string().max(200).optional(),
      limit: z.number().int().min(1).max(500).optional(),
      before: z.string().optional(),
    }).strict(),
  ),
  "runs.get": channel<RunDetail | null>()(z.object({ id: runId }).strict()),
  "runs.cancel": channel<Ack>()(z.object({ id: runId }).strict()),
  "runs.replay": channel<Envelope>()(z.object({ id: runId, code: z.string().max(1024 * 1024).optional(), fresh: z.boolean().optional() }).strict()),
  "runs.export": channel<{ filename: string; content: string } | null>()(z.object({ id: runId, format: z.enum(["json", "har"]) }).strict()),

  "decisions.list": channel<PendingDecision[]>()(empty),
  "decisions.decide": channel<Ack>()(
    z.object({
      runId,
      decision: z.enum(["approve", "deny", "always"]),
      message: z.string().max(2000).optional(),
      /** For a plan: approve only its first N writes (default: all of them). */
      writes: z.number().int().min(1).max(100_000).optional(),
    }).strict(),
  ),
  "rules.list": channel<AllowRule[]>()(empty),
  "rules.remove": channel<Ack>()(z.object({ api: apiName, operationId: z.string().min(1) }).strict()),

  "vault.list": channel<VaultItemView[]>()(empty),
  "vault.set": channel<Ack>()(
    z.object({ item: z.string().min(1), field: z.string().min(1), value: z.string().min(1).max(64 * 1024), allowApis: z.array(apiName).optional() }).strict(),
  ),
  "vault.allow": channel<Ack>()(z.object({ item: z.string().min(1), apis: z.array(apiName) }).strict()),
  "vault.remove": channel<Ack>()(z.object({ item: z.string().min(1), field: z.string().min(1).optional() }).strict()),
  "vault.reveal": channel<{ ok: true; value: string } | { ok: false; message: string }>()(z.object({ item: z.string().min(1), field: z.string().min(1) }).strict()),

  "auth.status": channel<SignInView[]>()(empty),
  /** Starts a sign-in; it ends in the background with an `auth.changed` event. */
  "auth.login": channel<SignInStart>()(
    z.object({ api: apiName, method: z.enum(["browser", "device"]), scopes: z.array(z.string().min(1).max(200)).max(100).optional() }).strict(),
  ),
  "auth.logout": channel<Ack>()(z.object({ api: apiName }).strict()),

  "connect.info": channel<ConnectInfo>()(empty),
  "connect.rotate": channel<ConnectInfo>()(empty),

  /** The limits agent programs run under: saved, overridden by this process's flags, in effect. */
  "settings.agentLimits": channel<AgentLimitsView>()(empty),
  /** Saves the agent limits (fields left out go back to their defaults); every value is checked against its bounds. */
  "settings.saveAgentLimits": channel<AgentLimitsView>()(z.object({ saved: agentLimitsPatch }).strict()),

  "programs.list": channel<SavedProgram[]>()(empty),
  "programs.save": channel<Ack>()(
    z.object({
      programs: z.array(z.object({ id: z.string().min(1).max(100), name: z.string().max(200), code: z.string().max(1024 * 1024), policy: z.enum(["read_only", "all"]) }).strict()).max(100),
    }).strict(),
  ),
} as const;

export type Contract = typeof contract;
export type ChannelName = keyof Contract;
export type RequestOf<C extends ChannelName> = z.input<Contract[C]["request"]>;
export type ParsedRequestOf<C extends ChannelName> = z.output<Contract[C]["request"]>;
export type ReplyOf<C extends ChannelName> = Contract[C] extends Channel<z.ZodType, infer R> ? R : never;
export const CHANNELS = Object.keys(contract) as ChannelName[];

/** What the renderer calls: one method per channel (the preload and the HTTP bridge both provide it). */
export type WorkbenchApi = { [C in ChannelName]: (request: RequestOf<C>) => Promise<ReplyOf<C>> };

/** `apis.list` → `apisList`: the preload's method names. */
export function methodName(channel: ChannelName): string {
  return channel.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase());
}

/** Errors cross the seam as data: the bridge and IPC both reply with this on failure. */
export interface ChannelError {
  error: { code: "invalid-request" | "not-found" | "failed"; message: string };
}
