/**
 * Errors at the channel seam are data: a handler throws a ChannelFailure with
 * one of the contract's codes and a message that says what to do, and the
 * dispatcher turns it into a `ChannelError` reply. Anything else thrown is a
 * bug, logged on the host and answered with a fixed message (exception text
 * from host code can carry secrets).
 */
import type { ChannelError } from "../../../shared/contract.ts";

export type ChannelErrorCode = ChannelError["error"]["code"];

export class ChannelFailure extends Error {
  readonly code: ChannelErrorCode;
  constructor(code: ChannelErrorCode, message: string) {
    super(message);
    this.name = "ChannelFailure";
    this.code = code;
  }
}

export function notFound(message: string): ChannelFailure {
  return new ChannelFailure("not-found", message);
}

export function invalidRequest(message: string): ChannelFailure {
  return new ChannelFailure("invalid-request", message);
}

export function failed(message: string): ChannelFailure {
  return new ChannelFailure("failed", message);
}

export function channelError(code: ChannelErrorCode, message: string): ChannelError {
  return { error: { code, message } };
}
