/**
 * `npm run bench -- search`: how well `find` ranks, on public benchmarks
 * nobody here wrote. Each folder under ../shared/benchmarks (or
 * WORKBENCH_BENCHMARKS_DIR) holding `<name>_oas.json` (the spec) and
 * `<name>.json` (`[{query, solution: ["GET /path", ...]}]`, RestBench's
 * format) is one set: its spec is ingested as a person would register it, and
 * each query goes through the spec reader's find. Figures: recall@10 of the
 * gold operations and hit@5 of the first step, beside plain BM25 over the same
 * words (no field weights, stemming, stop words or synonyms).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Artifact } from "../shared/artifact.ts";
import { ingest } from "../electron/host/specs/ingest.ts";
import { buildOperationIndex, PLAIN_BM25 } from "../electron/host/tools/operation-search.ts";
import { read } from "../electron/host/tools/spec-reader.ts";
import type { BenchRow, BenchSection } from "./table.ts";

interface Case {
  query: string;
  solution: string[];
}

type Ranker = (query: string, limit: number) => string[];

export default async function searchBench(): Promise<BenchSection> {
  const root = process.env.WORKBENCH_BENCHMARKS_DIR ?? fileURLToPath(new URL("../../shared/benchmarks/", import.meta.url));
  const rows: BenchRow[] = [];
  for (const set of benchmarkSets(root)) {
    const result = ingest(readFileSync(set.spec, "utf8"));
    if (!result.ok) throw new Error(`${set.name}: ${result.error.message}`);
    const artifact = result.artifact;
    const cases = JSON.parse(readFileSync(set.cases, "utf8")) as Case[];
    const ours = score(cases, findRanker(artifact));
    const plainIndex = buildOperationIndex(artifact.operations, PLAIN_BM25);
    const plain = score(cases, (query, limit) => plainIndex.search(query, limit).map(({ op }) => `${op.method.toUpperCase()} ${op.path}`));
    const about = `${cases.length} queries, ${artifact.operations.length} operations`;
    rows.push(
      { name: `${set.name}: recall@10 of the gold operations`, value: round(ours.recall), unit: "", baseline: { name: "plain BM25", value: round(plain.recall) }, note: about },
      { name: `${set.name}: hit@5 of the first step`, value: round(ours.hit), unit: "", baseline: { name: "plain BM25", value: round(plain.hit) } },
    );
  }
  if (!rows.length) rows.push({ name: `no benchmark sets under ${root}`, value: 0, unit: "" });
  return { title: "Search quality (find vs plain BM25)", rows };
}

function benchmarkSets(root: string): { name: string; spec: string; cases: string }[] {
  if (!existsSync(root)) return [];
  const sets: { name: string; spec: string; cases: string }[] = [];
  for (const dir of readdirSync(root, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const file of readdirSync(join(root, dir.name))) {
      const name = /^(.+)_oas\.json$/.exec(file)?.[1];
      const cases = name && join(root, dir.name, `${name}.json`);
      if (name && cases && existsSync(cases)) sets.push({ name: dir.name, spec: join(root, dir.name, file), cases });
    }
  }
  return sets.sort((a, b) => a.name.localeCompare(b.name));
}

/** find as programs get it: the spec reader's answer to `specs.<api>.find(query, limit)`. */
function findRanker(artifact: Artifact): Ranker {
  return (query, limit) => {
    const found = read(artifact, { q: "find", text: query, limit });
    if (!Array.isArray(found)) throw new Error(`find failed: ${JSON.stringify(found)}`);
    return found.map((op) => {
      const { method, path } = op as { method: string; path: string };
      return `${method} ${path}`;
    });
  };
}

function score(cases: Case[], rank: Ranker): { recall: number; hit: number } {
  let recall = 0;
  let hit = 0;
  for (const { query, solution } of cases) {
    // Gold steps as written ("GET /movie/{movie_id}/credits", some with stray spaces), each counted once.
    const gold = [...new Set(solution.map((step) => step.trim().replace(/\s+/, " ")))];
    const top = rank(query, 10);
    recall += gold.filter((step) => top.includes(step)).length / Math.max(gold.length, 1);
    if (gold[0] !== undefined && top.slice(0, 5).includes(gold[0])) hit++;
  }
  return { recall: recall / Math.max(cases.length, 1), hit: hit / Math.max(cases.length, 1) };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
