/**
 * Step 3: may this call leave the machine now? Under `read_only` only safe
 * methods are sent; a write is refused outright and never sent. Under `all`, a
 * write, and any call carrying a vault reference, needs a person's decision
 * unless an allow rule covers it or the caller approved writes up front.
 */
import { SAFE_METHODS, type Operation } from "../../../shared/artifact.ts";
import type { RunPolicy } from "../../../shared/runs.ts";

export type PolicyVerdict =
  | { kind: "send" }
  | { kind: "reject"; message: string }
  | { kind: "decide"; why: "write" | "vault" };

export interface PolicyInputs {
  policy: RunPolicy;
  operation: Operation;
  api: string;
  carriesVaultReference: boolean;
  /** A person's standing "always allow" for this operation of this API. */
  allowedByRule: boolean;
  /** The caller approved writes up front (`--yes`), or a person approved this very call. */
  preApproved: boolean;
}

export function isWrite(operation: Pick<Operation, "method">): boolean {
  return !SAFE_METHODS.includes(operation.method);
}

export function checkPolicy(inputs: PolicyInputs): PolicyVerdict {
  const { operation, policy } = inputs;
  const write = isWrite(operation);
  if (policy === "read_only" && write) {
    return {
      kind: "reject",
      message: `${operation.method.toUpperCase()} ${operation.path} (${operation.id}) changes state and this tool is read-only; nothing was sent. Use the write-capable tool, where a person approves each write.`,
    };
  }
  if (policy === "read_only" && inputs.carriesVaultReference) {
    return {
      kind: "reject",
      message: `This call carries a vault reference, which a person must approve each time; the read-only tool cannot ask. Nothing was sent. Use the write-capable tool.`,
    };
  }
  if (!write && !inputs.carriesVaultReference) return { kind: "send" };
  if (inputs.preApproved) return { kind: "send" };
  // A rule covers the operation; a vault reference still needs a person each time.
  if (inputs.allowedByRule && !inputs.carriesVaultReference) return { kind: "send" };
  return { kind: "decide", why: inputs.carriesVaultReference ? "vault" : "write" };
}
