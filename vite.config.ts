// Builds the renderer (React + Monaco) into dist/renderer, which `workbench serve`
// serves and the Electron window loads. Monaco and its workers are bundled:
// no CDN, so the app's CSP (script-src 'self') holds.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  root: "renderer",
  base: "./",
  plugins: [react()],
  build: {
    outDir: "../dist/renderer",
    emptyOutDir: true,
    // Monaco is big by nature; one warning per build about it says nothing new.
    chunkSizeWarningLimit: 8000,
    reportCompressedSize: false,
    // Monaco's languages make the build's plugin-timing report fire on slow machines; it is noise at install.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  worker: { format: "es" },
  server: { host: "127.0.0.1" },
});
