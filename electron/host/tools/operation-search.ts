/**
 * `specs.<api>.find(text)`: operations ranked the way a search engine ranks
 * pages, so that a question in plain words ("list pull requests for a
 * repository", "give me the movies directed by Sofia Coppola") finds its calls
 * even when no operation holds every word. BM25F: each operation is a document
 * whose fields (operationId words, path segments, summary, tags, the
 * description's first paragraph, parameter names, the method's verb) count
 * with their own weights and length norms; words are stemmed, stop words
 * dropped (search-words.ts), and each query word also matches its synonyms, a
 * little less strongly, as one term whose rarity is the whole group's (so
 * "add" is not worth more than "create" because fewer pages say it).
 *
 * Built once per artifact where find runs (the spec reader, in the sandbox's
 * worker): tens of milliseconds for GitHub's 1,223 operations, then about a
 * millisecond per query. Hand-written rather than MiniSearch or Orama: both
 * sum per-field scores and know no synonym group, and this is short.
 */
import type { Operation } from "../../../shared/artifact.ts";
import { METHOD_WORDS, synonymsOf, terms, type WordOptions } from "./search-words.ts";

const FIELDS = ["id", "path", "summary", "tags", "description", "parameters", "method"] as const;
/** How much of a description's first paragraph counts (one paragraph can be a whole manual). */
const LEAD_CHARS = 500;
type Field = (typeof FIELDS)[number];

export interface RankOptions extends WordOptions {
  /** Weight of each field; `undefined` merges every field into one bag of words. */
  weights?: Record<Field, number>;
  /** How much a synonym's match counts beside the word itself; 0 turns synonyms off. */
  synonymWeight: number;
  /** Score multiplier for deprecated operations. */
  deprecated: number;
  /** BM25's term saturation and length normalisation. */
  k1: number;
  b: number;
}

/** The ranking `find` uses. */
export const FIND_RANKING: RankOptions = {
  // The summary says what the call does in a person's words; the description says much else besides.
  weights: { id: 1, path: 1.5, summary: 4, tags: 1, description: 0.5, parameters: 0.5, method: 1 },
  stem: true,
  stopWords: true,
  synonymWeight: 0.4,
  deprecated: 0.7,
  k1: 1.2,
  // Short fields: a summary that says only what was asked beats one that says more besides.
  b: 0.9,
};

/** Plain BM25 over the same words: one bag per operation, no weights, stemming, stop words or synonyms. The bench's baseline. */
export const PLAIN_BM25: RankOptions = { stem: false, stopWords: false, synonymWeight: 0, deprecated: 1, k1: 1.2, b: 0.75 };

interface Posting {
  doc: number;
  /** The operation's occurrences of the term, weighted by field and normalised by field length: BM25F's pseudo term frequency. */
  tf: number;
}

export interface OperationIndex {
  search(text: string, limit: number): { op: Operation; score: number }[];
}

export function buildOperationIndex(operations: readonly Operation[], options: RankOptions = FIND_RANKING): OperationIndex {
  const slotCount = options.weights ? FIELDS.length : 1;
  const counts = new Map<string, { doc: number; tf: Float64Array }[]>();
  const lengths = operations.map(() => new Float64Array(slotCount));
  const totals = new Float64Array(slotCount);

  operations.forEach((op, doc) => {
    const byTerm = new Map<string, Float64Array>();
    for (const [field, text] of fieldTexts(op, !!options.weights)) {
      // The method's verb is our addition, not a word of the spec: plain BM25 goes without it.
      if (field === "method" && !options.weights) continue;
      const slot = options.weights ? FIELDS.indexOf(field) : 0;
      for (const term of terms(text, options)) {
        let tf = byTerm.get(term);
        if (!tf) byTerm.set(term, (tf = new Float64Array(slotCount)));
        tf[slot]!++;
        lengths[doc]![slot]!++;
        totals[slot]!++;
      }
    }
    for (const [term, tf] of byTerm) {
      let list = counts.get(term);
      if (!list) counts.set(term, (list = []));
      list.push({ doc, tf });
    }
  });

  const n = operations.length;
  const weights = options.weights ? FIELDS.map((f) => options.weights![f]) : [1];
  const averages = [...totals].map((t) => t / Math.max(n, 1) || 1);
  const postings = new Map<string, Posting[]>();
  for (const [term, list] of counts) {
    postings.set(term, list.map(({ doc, tf }) => {
      let weighted = 0;
      for (let slot = 0; slot < slotCount; slot++) {
        const count = tf[slot]!;
        if (count) weighted += (weights[slot]! * count) / (1 - options.b + (options.b * lengths[doc]![slot]!) / averages[slot]!);
      }
      return { doc, tf: weighted };
    }));
  }

  /**
   * The BM25 score of one query word for every operation that holds it or a
   * synonym: the group counts as one term (Lucene's SynonymQuery), its
   * document frequency the union's, a synonym's occurrences weighted down.
   */
  const conceptScores = (members: { term: string; weight: number }[]): Map<number, number> => {
    const weighted = new Map<number, number>();
    for (const { term, weight } of members) {
      for (const { doc, tf } of postings.get(term) ?? []) weighted.set(doc, (weighted.get(doc) ?? 0) + weight * tf);
    }
    const df = weighted.size;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const scores = new Map<number, number>();
    for (const [doc, tf] of weighted) scores.set(doc, (idf * tf * (options.k1 + 1)) / (options.k1 + tf));
    return scores;
  };
  const exact = new Map<string, number>();
  operations.forEach((op, doc) => {
    for (const key of [op.id, op.path, `${op.method} ${op.path}`]) if (!exact.has(key.toLowerCase())) exact.set(key.toLowerCase(), doc);
  });

  return {
    search(text, limit) {
      const totalsByDoc = new Map<number, number>();
      for (const term of new Set(terms(text, options))) {
        const synonyms = options.synonymWeight > 0 ? synonymsOf(term).map((synonym) => ({ term: synonym, weight: options.synonymWeight })) : [];
        for (const [doc, score] of conceptScores([{ term, weight: 1 }, ...synonyms])) totalsByDoc.set(doc, (totalsByDoc.get(doc) ?? 0) + score);
      }
      // Asked for by name (an id, a path, "GET /path"): that operation comes first.
      const named = exact.get(text.trim().toLowerCase());
      if (named !== undefined) totalsByDoc.set(named, Infinity);
      return [...totalsByDoc]
        .map(([doc, score]) => ({ doc, score: operations[doc]!.deprecated ? score * options.deprecated : score }))
        .sort((a, b) => b.score - a.score || a.doc - b.doc)
        .slice(0, limit)
        .map(({ doc, score }) => ({ op: operations[doc]!, score }));
    },
  };
}

function fieldTexts(op: Operation, ranked: boolean): [Field, string][] {
  // Ranked find reads the description's first paragraph, which says what the call does; the rest
  // is notes (scopes, rate limits, change logs) whose words match every question a little.
  const description = op.description ?? "";
  const head = description.slice(0, LEAD_CHARS);
  const lead = ranked ? head.slice(0, /\n\s*\n/.exec(head)?.index ?? head.length) : description;
  const literalSegments = op.path.split("/").filter((s) => s && !/^\{.*\}$/.test(s));
  return [
    ["id", op.id],
    ["path", literalSegments.join(" ")],
    ["summary", op.summary ?? ""],
    ["tags", op.tags.join(" ")],
    ["description", lead],
    ["parameters", op.parameters.map((p) => p.name).join(" ")],
    ["method", METHOD_WORDS[op.method] ?? ""],
  ];
}
