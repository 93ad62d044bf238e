/**
 * A fresh QuickJS instance, ready for one run: its own WebAssembly.Memory
 * capped at the run's memory limit, a runtime with no module loader and a
 * bounded stack, and the bootstrap compiled but not yet called. Nothing has run
 * in it, so a worker can build the next one while it waits for work: starting
 * a run then costs a function call instead of ~3 ms of instantiation and parsing.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type CustomizeVariantOptions,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
} from "quickjs-emscripten-core";
import * as releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { memoryPages } from "./limits.ts";
import { wasm, type WasmMemory, type WasmModule } from "./wasm.ts";

// At run time Node loads the package's ESM build, whose default export is the
// variant; its typings are the CommonJS ones, where `default` is the module.
const releaseSyncVariant = releaseSync.default as unknown as QuickJSSyncVariant;

/** QuickJS's own stack bound; the worker's native stack (16 MiB) is far above it. */
const QUICKJS_STACK_BYTES = 512 * 1024;

export interface GuestInstance {
  memoryBytes: number;
  memory: WasmMemory;
  /**
   * Whether the memory refused to grow at least once: the program reached its
   * memory cap. QuickJS does not always say so itself: out of memory inside a
   * promise job is swallowed, and with no memory left for its error it throws null.
   */
  memoryRefused(): boolean;
  runtime: QuickJSRuntime;
  ctx: QuickJSContext;
  /** The bootstrap function (guest/bootstrap.js), not yet called. */
  bootstrap: QuickJSHandle;
}

export async function createGuestInstance(wasmModule: WasmModule, memoryBytes: number, bootstrapSource: string): Promise<GuestInstance> {
  const memory = new wasm.Memory({ initial: 256, maximum: memoryPages(memoryBytes) });
  let refused = false;
  const grow = memory.grow.bind(memory);
  // Emscripten grows the heap through this method; an own property shadows the prototype's.
  memory.grow = (pages: number) => {
    try {
      return grow(pages);
    } catch (err) {
      refused = true;
      throw err;
    }
  };
  // Their types name the global WebAssembly classes, which our lib does not declare.
  const options = { wasmModule, wasmMemory: memory } as unknown as CustomizeVariantOptions;
  const quickjs = await newQuickJSWASMModuleFromVariant(newVariant(releaseSyncVariant, options));
  const runtime = quickjs.newRuntime();
  runtime.setMaxStackSize(QUICKJS_STACK_BYTES);
  runtime.setModuleLoader(() => ({ error: new Error("modules are not available in the sandbox") }));
  const ctx = runtime.newContext();
  const evaluated = ctx.evalCode(bootstrapSource, "bootstrap.js");
  if (evaluated.error) throw new Error(`sandbox bootstrap failed to compile: ${JSON.stringify(ctx.dump(evaluated.error))}`);
  return { memoryBytes, memory, memoryRefused: () => refused, runtime, ctx, bootstrap: evaluated.value };
}
