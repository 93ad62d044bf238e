// Runs on `npm install` / `npm ci`: builds what the workbench needs to run from
// a clean clone (the renderer bundle served by `workbench serve`), so no other
// step is needed before `npm run workbench` or `npm start`.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

if (existsSync(new URL("../renderer/index.html", import.meta.url))) {
  const vite = spawnSync(process.execPath, ["node_modules/vite/bin/vite.js", "build", "--logLevel", "warn"], { stdio: "inherit" });
  if (vite.status !== 0) process.exit(vite.status ?? 1);
}
