/** Small formatting helpers shared by the console, the inbox and the history. */
import type { CallStatus, RunStatus } from "../../shared/envelope.ts";

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "";
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatTime(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const now = new Date();
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay ? d.toLocaleTimeString() : d.toLocaleString();
}

export function formatRelative(iso: string | undefined, now = Date.now()): string {
  if (!iso) return "";
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  const sign = diff < 0 ? -1 : 1;
  const unit = abs < 60_000 ? ["second", 1000] : abs < 3_600_000 ? ["minute", 60_000] : abs < 86_400_000 ? ["hour", 3_600_000] : ["day", 86_400_000];
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  return rtf.format(sign * Math.round(abs / (unit[1] as number)), unit[0] as Intl.RelativeTimeFormatUnit);
}

/** `m:ss` until `iso`, or "expired". */
export function countdown(iso: string, now = Date.now()): string {
  const left = new Date(iso).getTime() - now;
  if (left <= 0) return "expired";
  const s = Math.floor(left / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

export function runStatusTone(status: RunStatus | "pending" | string): "ok" | "warn" | "danger" | "accent" | "" {
  switch (status) {
    case "completed":
      return "ok";
    case "pending":
      return "warn";
    case "failed":
    case "interrupted":
      return "danger";
    case "running":
      return "accent";
    default:
      return "";
  }
}

export function callStatusTone(status: CallStatus): "ok" | "warn" | "danger" | "accent" | "" {
  if (typeof status === "number") return status < 300 ? "ok" : status < 400 ? "" : "danger";
  if (status === "pending" || status === "unknown") return "warn";
  if (status === "in_flight") return "accent";
  return "danger";
}

export function methodClass(method: string): string {
  return `method method-${method.toLowerCase()}`;
}

/** Splits `METHOD /path` into its parts. */
export function splitOperation(operation: string): { method: string; path: string } {
  const space = operation.indexOf(" ");
  return space < 0 ? { method: "", path: operation } : { method: operation.slice(0, space), path: operation.slice(space + 1) };
}

export function sourceLabel(source: { kind: string; client?: string }): string {
  if (source.kind === "mcp") return source.client ? `agent ${source.client}` : "an agent (MCP)";
  if (source.kind === "cli") return "the command line";
  return "you, in the workbench";
}

/** Pretty-prints a body when it is JSON, else returns it as is. */
export function prettyBody(body: string | undefined): string {
  if (body === undefined) return "";
  const t = body.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return body;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return body;
  }
}
