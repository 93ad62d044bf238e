/**
 * What a person tells the workbench about an API that its spec cannot:
 * where to send, which credential (always a vault reference), what programs
 * may read as `context.<api>`, and how strictly to validate. Used when adding
 * an API and in its settings.
 */
import { useState } from "react";
import type { ApiConfigInput, InlineSecurityScheme } from "../../shared/api-config.ts";
import type { ServerInfo } from "../../shared/artifact.ts";
import { API_LIMIT_BOUNDS, boundText, checkLimit } from "../../shared/limits.ts";
import { useActions } from "../app/actions.ts";
import { useChannel } from "../app/workbench-context.tsx";
import "./ApiConfigForm.css";

export interface ConfigDraft {
  baseUrl: string;
  authMode: string; // "" | "scheme:<name>" | "inline:bearer" | "inline:basic" | "inline:apiKey"
  credential: string;
  username: string;
  apiKeyName: string;
  apiKeyIn: "header" | "query" | "cookie";
  validate: "strict" | "warn" | "off";
  globals: string;
  timeoutMs: string;
  maxResponseBytes: string;
  idempotencyHeader: string;
  passthroughHeaders: string;
  responseHeaders: string;
}

export function serverUrl(server: ServerInfo): string {
  return server.url.replace(/\{([^}]+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? `{${name}}`);
}

export function draftFromConfig(config: Partial<ApiConfigInput> | undefined, fallbackBaseUrl = ""): ConfigDraft {
  const auth = config?.auth;
  const inline = auth?.inline;
  return {
    baseUrl: config?.baseUrl ?? fallbackBaseUrl,
    authMode: auth?.scheme ? `scheme:${auth.scheme}` : inline ? (inline.type === "http" ? `inline:${inline.scheme}` : inline.type === "apiKey" ? "inline:apiKey" : "") : "",
    credential: auth?.credential ?? "",
    username: auth?.username ?? "",
    apiKeyName: inline?.type === "apiKey" ? inline.name : "X-API-Key",
    apiKeyIn: inline?.type === "apiKey" ? inline.in : "header",
    validate: config?.validate ?? "strict",
    globals: config?.sandboxGlobals && Object.keys(config.sandboxGlobals).length ? JSON.stringify(config.sandboxGlobals, null, 2) : "",
    timeoutMs: config?.timeoutMs ? String(config.timeoutMs) : "",
    maxResponseBytes: config?.maxResponseBytes ? String(config.maxResponseBytes) : "",
    idempotencyHeader: config?.autoIdempotencyHeader ?? "",
    passthroughHeaders: (config?.passthroughHeaders ?? []).join(", "),
    responseHeaders: (config?.responseHeaders ?? []).join(", "),
  };
}

/** The draft as an ApiConfig, or the first problem that stops it being one. */
export function configFromDraft(draft: ConfigDraft, base: Partial<ApiConfigInput> = {}): { config?: ApiConfigInput; problem?: string } {
  const config: ApiConfigInput = { ...base };
  delete config.auth;
  if (draft.baseUrl.trim()) {
    try {
      new URL(draft.baseUrl.trim());
    } catch {
      return { problem: "The base URL is not a URL (it needs a scheme, like https://api.example.com)." };
    }
    config.baseUrl = draft.baseUrl.trim();
  } else delete config.baseUrl;
  if (draft.authMode) {
    if (draft.credential && !/^vault:[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(draft.credential)) {
      return { problem: "The credential must be a vault reference like vault:github/token. Add the secret in the Vault first." };
    }
    let inline: InlineSecurityScheme | undefined;
    if (draft.authMode === "inline:bearer" || draft.authMode === "inline:basic") inline = { type: "http", scheme: draft.authMode === "inline:bearer" ? "bearer" : "basic" };
    else if (draft.authMode === "inline:apiKey") {
      if (!draft.apiKeyName.trim()) return { problem: "Give the API key's header, query or cookie name." };
      inline = { type: "apiKey", name: draft.apiKeyName.trim(), in: draft.apiKeyIn };
    }
    config.auth = {
      ...(draft.authMode.startsWith("scheme:") ? { scheme: draft.authMode.slice(7) } : {}),
      ...(inline ? { inline } : {}),
      ...(draft.credential ? { credential: draft.credential } : {}),
      ...(draft.username.trim() ? { username: draft.username.trim() } : {}),
    };
  }
  config.validate = draft.validate;
  if (draft.globals.trim()) {
    try {
      const parsed = JSON.parse(draft.globals) as unknown;
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { problem: "Sandbox globals must be a JSON object, like {\"org\": \"acme\"}." };
      config.sandboxGlobals = parsed as ApiConfigInput["sandboxGlobals"];
    } catch (err) {
      return { problem: `Sandbox globals are not valid JSON: ${(err as Error).message}` };
    }
  } else delete config.sandboxGlobals;
  // The same bounds as `workbench api set --timeout-ms / --max-response-bytes`.
  for (const key of ["timeoutMs", "maxResponseBytes"] as const) {
    const text = draft[key].trim();
    if (!text) continue;
    const checked = checkLimit(API_LIMIT_BOUNDS[key], Number(text));
    if (!checked.ok) return { problem: `The ${API_LIMIT_BOUNDS[key].label} must be ${boundText(API_LIMIT_BOUNDS[key])}.` };
    config[key] = checked.value;
  }
  if (draft.idempotencyHeader.trim()) config.autoIdempotencyHeader = draft.idempotencyHeader.trim();
  else delete config.autoIdempotencyHeader;
  config.passthroughHeaders = list(draft.passthroughHeaders);
  config.responseHeaders = list(draft.responseHeaders);
  return { config };
}

function list(text: string): string[] {
  return text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
}

export function ApiConfigForm({
  draft,
  onChange,
  servers,
  schemes,
  apiName,
}: {
  draft: ConfigDraft;
  onChange: (draft: ConfigDraft) => void;
  servers: ServerInfo[];
  /** Scheme names from the spec, with a short description. */
  schemes: { name: string; label: string }[];
  apiName: string;
}) {
  const vault = useChannel("vault.list", {}, ["vault.changed"]);
  const actions = useActions();
  const [advanced, setAdvanced] = useState(false);
  const set = <K extends keyof ConfigDraft>(key: K, value: ConfigDraft[K]) => onChange({ ...draft, [key]: value });
  const refs = (vault.data ?? []).flatMap((item) => item.fields.map((f) => ({ ref: `vault:${item.name}/${f.name}`, allowed: item.allowApis.includes(apiName) })));
  const serverUrls = [...new Set(servers.map(serverUrl))];
  const credentialRef = refs.find((r) => r.ref === draft.credential);

  return (
    <div className="config-form">
      <label className="field">
        <span className="field-label">Base URL</span>
        <input className="input" list="server-urls" value={draft.baseUrl} onChange={(e) => set("baseUrl", e.target.value)} placeholder="https://api.example.com" spellCheck={false} />
        <datalist id="server-urls">
          {serverUrls.map((u) => (
            <option key={u} value={u} />
          ))}
        </datalist>
        <span className="field-hint">{serverUrls.length ? `The spec lists ${serverUrls.length === 1 ? serverUrls[0] : `${serverUrls.length} servers`}.` : "The spec lists no server: give one."} Calls go only here.</span>
      </label>
      <div className="config-row">
        <label className="field">
          <span className="field-label">Authentication</span>
          <select className="select" value={draft.authMode} onChange={(e) => set("authMode", e.target.value)}>
            <option value="">None</option>
            {schemes.map((s) => (
              <option key={s.name} value={`scheme:${s.name}`}>
                {s.label}
              </option>
            ))}
            <option value="inline:bearer">Bearer token (not in the spec)</option>
            <option value="inline:basic">Basic auth (not in the spec)</option>
            <option value="inline:apiKey">API key (not in the spec)</option>
          </select>
        </label>
        {draft.authMode && (
          <label className="field config-grow">
            <span className="field-label">Credential (vault reference)</span>
            <input className="input" list="vault-refs" value={draft.credential} onChange={(e) => set("credential", e.target.value)} placeholder="vault:item/field" spellCheck={false} />
            <datalist id="vault-refs">
              {refs.map((r) => (
                <option key={r.ref} value={r.ref} />
              ))}
            </datalist>
            {credentialRef && !credentialRef.allowed && apiName && <span className="field-error">That vault item does not allow {apiName} yet: allow it in the Vault.</span>}
            {!refs.length && (
              <span className="field-hint">
                The vault is empty.{" "}
                <button type="button" className="link-btn" onClick={() => actions.openView("vault")}>
                  Add a secret
                </button>{" "}
                first.
              </span>
            )}
          </label>
        )}
      </div>
      {(draft.authMode === "inline:basic" || draft.authMode.startsWith("scheme:")) && draft.authMode !== "" && (
        <label className="field">
          <span className="field-label">User name or client id (basic auth, OAuth2; optional)</span>
          <input className="input" value={draft.username} onChange={(e) => set("username", e.target.value)} spellCheck={false} />
        </label>
      )}
      {draft.authMode === "inline:apiKey" && (
        <div className="config-row">
          <label className="field config-grow">
            <span className="field-label">Key name</span>
            <input className="input" value={draft.apiKeyName} onChange={(e) => set("apiKeyName", e.target.value)} />
          </label>
          <label className="field">
            <span className="field-label">Sent in</span>
            <select className="select" value={draft.apiKeyIn} onChange={(e) => set("apiKeyIn", e.target.value as ConfigDraft["apiKeyIn"])}>
              <option value="header">header</option>
              <option value="query">query</option>
              <option value="cookie">cookie</option>
            </select>
          </label>
        </div>
      )}
      <label className="field">
        <span className="field-label">Validation of calls against the spec</span>
        <select className="select" value={draft.validate} onChange={(e) => set("validate", e.target.value as ConfigDraft["validate"])}>
          <option value="strict">Strict: a call that does not match the schema is rejected, not sent</option>
          <option value="warn">Warn: send it, and note the mismatch in the call log</option>
          <option value="off">Off: send what the program asked</option>
        </select>
      </label>
      <label className="field">
        <span className="field-label">Sandbox globals (JSON, read by programs as context.{apiName || "<api>"}; never secrets)</span>
        <textarea className="textarea" rows={3} value={draft.globals} onChange={(e) => set("globals", e.target.value)} placeholder={'{ "org": "acme" }'} spellCheck={false} />
      </label>
      <button type="button" className="link-btn config-advanced-toggle" aria-expanded={advanced} onClick={() => setAdvanced(!advanced)}>
        {advanced ? "Fewer options" : "More options: timeout, response size, idempotency, headers"}
      </button>
      {advanced && (
        <div className="config-advanced">
          <label className="field">
            <span className="field-label">Timeout (ms)</span>
            <input className="input" inputMode="numeric" value={draft.timeoutMs} onChange={(e) => set("timeoutMs", e.target.value)} placeholder="30000" />
          </label>
          <label className="field">
            <span className="field-label">Largest response (bytes)</span>
            <input className="input" inputMode="numeric" value={draft.maxResponseBytes} onChange={(e) => set("maxResponseBytes", e.target.value)} placeholder={String(API_LIMIT_BOUNDS.maxResponseBytes.default)} />
          </label>
          <label className="field">
            <span className="field-label">Idempotency header on writes</span>
            <input className="input" value={draft.idempotencyHeader} onChange={(e) => set("idempotencyHeader", e.target.value)} placeholder="Idempotency-Key" />
          </label>
          <label className="field">
            <span className="field-label">Headers programs may set</span>
            <input className="input" value={draft.passthroughHeaders} onChange={(e) => set("passthroughHeaders", e.target.value)} placeholder="X-Request-Id, Accept-Language" />
          </label>
          <label className="field">
            <span className="field-label">Response headers programs may read</span>
            <input className="input" value={draft.responseHeaders} onChange={(e) => set("responseHeaders", e.target.value)} placeholder="Link, X-RateLimit-Remaining" />
          </label>
        </div>
      )}
    </div>
  );
}
