// Browser tests: each file starts its own `workbench serve` and Chromium, so
// files run one at a time (Chromium and the sandbox pool are heavy on CI boxes).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
    reporters: ["default"],
  },
});
