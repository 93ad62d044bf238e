/**
 * The QuickJS WebAssembly module, compiled once per process and posted to every
 * worker, which instantiates it afresh for each run. Compiling takes ~2.5 ms
 * (V8 compiles lazily), so it is done synchronously on first use.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../common/assets.ts";
import { wasm, type WasmModule } from "./wasm.ts";

let compiled: WasmModule | undefined;

/** Throws when the QuickJS build cannot be found or compiled (a broken install). */
export function compiledQuickJS(): WasmModule {
  compiled ??= new wasm.Module(readFileSync(assetPath("quickjsWasm")));
  return compiled;
}
