/** The sandbox's public surface: the pool, its contract, and the envelope of a finished run. */
export { SandboxPool, type SandboxPoolOptions } from "./pool.ts";
export { outcomeToEnvelope } from "./envelope.ts";
export * from "./types.ts";
