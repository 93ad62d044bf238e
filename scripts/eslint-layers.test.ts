/**
 * The layering rule fires: ESLint's own API, with the repository's
 * eslint.config.js, lints small sources as if they sat in each host folder.
 * A rule that never fires would pass `npm run lint` just as well as one that
 * holds the layers, so each layer is shown refusing what it must refuse.
 */
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

const eslint = new ESLint({ cwd: REPO_ROOT });

/** The layering messages ESLint gives `source` placed at `file` (repository-relative; the file need not exist). */
async function layerErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${REPO_ROOT}/${file}` });
  return result!.messages.filter((m) => m.ruleId === "workbench/layers").map((m) => m.message);
}

describe("the host layering rule (workbench/layers)", () => {
  it("sandbox/ imports only itself, shared/ and the asset table", async () => {
    expect(await layerErrors("electron/host/sandbox/probe.ts", 'import { sendCall } from "../proxy/pipeline.ts";\nvoid sendCall;\n')).toEqual([
      expect.stringMatching(/^electron\/host\/sandbox\/probe\.ts may not import electron\/host\/proxy\/pipeline\.ts: the layer electron\/host\/sandbox\/\*\* imports only electron\/host\/sandbox\/\*\*, electron\/host\/common\/assets\.ts, shared\/\*\*/),
    ]);
    expect(await layerErrors("electron/host/sandbox/probe.ts", 'export { assetPath } from "../common/assets.ts";\n')).toEqual([]);
    expect(await layerErrors("electron/host/sandbox/probe.ts", 'export { writeFileAtomic } from "../common/atomic-file.ts";\n')).toHaveLength(1);
    expect(await layerErrors("electron/host/sandbox/probe.ts", 'export * from "../vault/vault.ts";\n')).toHaveLength(1);
    expect(await layerErrors("electron/host/sandbox/probe.ts", 'export const load = () => import("../runs/store.ts");\n')).toHaveLength(1);
    expect(await layerErrors("electron/host/sandbox/probe.ts", 'import type { JsonValue } from "../../../shared/json.ts";\nimport { limits } from "./limits.ts";\nexport type X = JsonValue;\nvoid limits;\n')).toEqual([]);
  });

  it("specs/ never imports proxy/, sandbox/ or vault/", async () => {
    for (const folder of ["proxy/pipeline.ts", "sandbox/pool.ts", "vault/vault.ts"]) {
      expect(await layerErrors("electron/host/specs/probe.ts", `export * from "../${folder}";\n`), folder).toEqual([expect.stringContaining(`may not import electron/host/${folder}`)]);
    }
    expect(await layerErrors("electron/host/specs/probe.ts", 'export * from "../common/json-file.ts";\nexport * from "./ingest.ts";\n')).toEqual([]);
  });

  it("nothing under electron/host/ imports main.ts, preload.ts, ipc.ts or a face", async () => {
    const faces = ["../main.ts", "../preload.ts", "../ipc.ts", "../cli.ts", "../cli/doctor.ts", "../serve.ts", "../serve/lockfile.ts"];
    for (const face of faces) {
      expect(await layerErrors("electron/host/workbench.ts", `export * from "${face}";\n`), face).toEqual([expect.stringContaining("Host code never imports a face")]);
      expect(await layerErrors("electron/host/handlers/probe.ts", `export * from "../${face}";\n`), face).toHaveLength(1);
    }
  });

  it("lets tests use the test helpers, and nothing more than their layer otherwise", async () => {
    expect(await layerErrors("electron/host/specs/probe.test.ts", 'export * from "../test-support/artifacts.ts";\n')).toEqual([]);
    expect(await layerErrors("electron/host/specs/probe.ts", 'export * from "../test-support/artifacts.ts";\n')).toHaveLength(1);
    expect(await layerErrors("electron/host/sandbox/probe.test.ts", 'export * from "../proxy/pipeline.ts";\n')).toHaveLength(1);
  });

  it("leaves packages and Node built-ins to the other rules", async () => {
    expect(await layerErrors("electron/host/sandbox/probe.ts", 'import { z } from "zod";\nimport { join } from "node:path";\nvoid z;\nvoid join;\n')).toEqual([]);
  });
});
