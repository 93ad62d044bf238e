/**
 * The few WebAssembly types the sandbox uses. Node has WebAssembly at run time,
 * but our TypeScript lib (ES2023, no DOM) does not declare it, and a global
 * declaration here would clash with the renderer's DOM lib; so the sandbox
 * reaches it through these local types.
 */
export interface WasmModule {
  readonly __wasmModule?: never;
}

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
