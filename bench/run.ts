/**
 * `npm run bench [-- section...]`: runs every bench/<section>.bench.ts in turn
 * (each default-exports a function returning a BenchSection), prints a table per
 * section and writes bench/results.json. Figures, not assertions: targets are
 * shown beside what was measured.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { formatSection, type BenchSection } from "./table.ts";

const wanted = process.argv.slice(2);
const files = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();
const results: BenchSection[] = [];
const started = performance.now();
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, "");
  if (wanted.length && !wanted.includes(name)) continue;
  const mod = (await import(new URL(file, import.meta.url).href)) as { default: () => Promise<BenchSection> };
  const t0 = performance.now();
  const section = await mod.default();
  results.push(section);
  process.stdout.write(`${formatSection(section)}\n(${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
}
writeFileSync(
  new URL("./results.json", import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: (await import("node:os")).cpus().length, sections: results }, null, 2)}\n`,
);
process.stdout.write(`\nbench finished in ${((performance.now() - started) / 1000).toFixed(1)} s; figures in bench/results.json\n`);
