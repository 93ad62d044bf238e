/**
 * `npm run bench [-- section...]`: runs each section in turn, prints a table per
 * section and writes bench/results.json. Figures, not assertions: targets are
 * shown beside what was measured.
 */
import { writeFileSync } from "node:fs";
import { formatSection, type BenchSection } from "./table.ts";

const sections: Record<string, () => Promise<BenchSection>> = {};

const wanted = process.argv.slice(2);
const results: BenchSection[] = [];
const started = performance.now();
for (const [name, run] of Object.entries(sections)) {
  if (wanted.length && !wanted.includes(name)) continue;
  const section = await run();
  results.push(section);
  process.stdout.write(`${formatSection(section)}\n`);
}
writeFileSync(new URL("./results.json", import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, sections: results }, null, 2)}\n`);
process.stdout.write(`\nbench finished in ${((performance.now() - started) / 1000).toFixed(1)} s; figures in bench/results.json\n`);
