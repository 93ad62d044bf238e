import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["electron/**/*.test.ts", "shared/**/*.test.ts", "specs/**/*.test.ts", "renderer/**/*.test.ts", "scripts/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    setupFiles: ["./vitest.setup.ts"],
    // electron-store imports Electron; processed by Vite, a test's vi.mock("electron") reaches it (Electron's binary is not here).
    server: { deps: { inline: ["electron-store"] } },
  },
});
