/** Failures of a channel call, as the renderer sees them. */
import type { ChannelError } from "../../shared/contract.ts";

/** The host answered with a ChannelError (or the transport failed): `message` says what went wrong. */
export class BridgeError extends Error {
  readonly code: ChannelError["error"]["code"] | "unauthorized" | "network";
  readonly status: number | undefined;
  constructor(code: BridgeError["code"], message: string, status?: number) {
    super(message);
    this.name = "BridgeError";
    this.code = code;
    this.status = status;
  }
}

export function isChannelError(value: unknown): value is ChannelError {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const error = (value as { error?: unknown }).error;
  return keys.length === 1 && !!error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string";
}

/** Plain text for any thrown value, for error banners. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
