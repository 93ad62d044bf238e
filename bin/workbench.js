#!/usr/bin/env node
// Launcher for the `workbench` command: checks Node, quiets the experimental
// warnings of the features we rely on (node:sqlite, type stripping), then runs
// electron/cli.ts straight from source.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`workbench needs Node.js 22.18 or newer (this is ${process.version}). See DEVELOPERS.md.\n`);
  process.exit(1);
}
const quiet = /SQLite is an experimental feature|Type Stripping is an experimental feature|stripping types is an experimental/i;
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name === "ExperimentalWarning" && quiet.test(warning.message)) return;
  process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

// `workbench runs list | head`: a closed pipe ends the output, not the process with a stack trace.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

const { main } = await import("../electron/cli.ts");
const { processIo } = await import("../electron/cli/io.ts");
const io = processIo();
const code = await main(process.argv.slice(2), io);
process.exitCode = code;
