/**
 * How `find` turns text into terms, for operations and queries alike: words
 * split on separators and on case (`reposGetContent` → repos, get, content;
 * the whole word is kept too, so `reposGetContent` and `oauth` still match
 * themselves), lower-cased, English stop words and request fillers dropped
 * ("give me the…"), irregular plurals made singular, then Porter-stemmed so
 * that `movies` meets `movie` and `listing` meets `list`. Synonyms (verbs a
 * person uses for the same call, common API abbreviations) are looked up by
 * stem at query time, never written into the index.
 */
import { stemmer } from "stemmer";

export interface WordOptions {
  stem: boolean;
  stopWords: boolean;
}

const STOP_WORDS = new Set(
  (
    // Articles, pronouns, auxiliaries, prepositions and conjunctions (the usual English list)…
    "a an and are as at be been being but by can could did do does doing for from had has have having he her here hers him his how i if in into is it its " +
    "itself just me my myself no nor not of off on once only or other our ours out over own same she should so some such than that the their theirs them " +
    "then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours " +
    // …and the fillers of a request written as a sentence.
    "please give want need tell let like know"
  ).split(" "),
);

/** Plurals Porter leaves apart from their singular. */
const IRREGULAR: Record<string, string> = { people: "person", children: "child", men: "man", women: "woman", indices: "index", statuses: "status" };

/**
 * Groups of words that ask for the same thing. The verbs are how people name
 * calls (the HTTP method's words are indexed too, see operation-search.ts);
 * the rest are abbreviations APIs use in paths and ids.
 */
const SYNONYM_GROUPS = [
  ["list", "get", "show", "fetch", "retrieve", "read"],
  ["create", "add", "make", "new"],
  ["delete", "remove", "destroy"],
  ["update", "edit", "change", "set", "modify"],
  ["repository", "repo"],
  ["organization", "org"],
  ["configuration", "config"],
  ["application", "app"],
  ["environment", "env"],
  ["information", "info"],
  ["administrator", "admin"],
  ["authentication", "auth"],
  ["parameter", "param"],
  ["statistic", "stat"],
];

/** Words an HTTP method stands for, so "create a pet" finds `POST /pets` named `addPet`. */
export const METHOD_WORDS: Record<string, string> = { get: "get", post: "create", put: "update", patch: "update", delete: "delete" };

const stems = new Map<string, string>();
function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer(IRREGULAR[word] ?? word);
    stems.set(word, s);
  }
  return s;
}

const WORD = /[A-Za-z0-9]+/g;
const HAS_CASE_CHANGE = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;
const CASE_CHANGE = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

/** The terms of a text, in order, repeated as often as they occur. One-letter words (the "s" of "user's") carry nothing. */
export function terms(text: string, options: WordOptions): string[] {
  const out: string[] = [];
  const push = (word: string) => {
    if (word.length < 2) return;
    const lower = word.toLowerCase();
    if (options.stopWords && STOP_WORDS.has(lower)) return;
    out.push(options.stem ? stem(lower) : lower);
  };
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match; match = WORD.exec(text)) {
    const word = match[0];
    if (HAS_CASE_CHANGE.test(word)) for (const part of word.split(CASE_CHANGE)) push(part);
    push(word);
  }
  return out;
}

const synonymsByStem = new Map<string, string[]>();
for (const group of SYNONYM_GROUPS) {
  const stemmed = group.map((w) => stem(w));
  for (const s of stemmed) synonymsByStem.set(s, stemmed.filter((other) => other !== s));
}

/** Other stems that ask for the same thing as `term` (a stem). */
export function synonymsOf(term: string): string[] {
  return synonymsByStem.get(term) ?? [];
}
