/**
 * Turns APIs and their operations into the flat row list the virtualised
 * sidebar draws: API headers, tag (or path) groups, operations. Pure, so the
 * filtering and grouping rules are easy to read in one place.
 */
import type { ApiSummary, OperationRow } from "../../shared/contract.ts";

export type GroupMode = "tag" | "path";

export interface Filter {
  text: string;
  methods: ReadonlySet<string>;
  tag: string;
}

export type SidebarRow =
  | { kind: "api"; key: string; api: ApiSummary; expanded: boolean; matches: number | undefined }
  | { kind: "group"; key: string; api: string; name: string; count: number; expanded: boolean }
  | { kind: "op"; key: string; api: string; op: OperationRow }
  | { kind: "note"; key: string; api: string; text: string; tone?: "error" };

export const ROW_HEIGHT: Record<SidebarRow["kind"], number> = { api: 34, group: 26, op: 40, note: 30 };

/** Operations above this count start with their groups folded. */
export const FOLD_GROUPS_ABOVE = 80;

export function matchesFilter(op: OperationRow, filter: Filter, words: string[]): boolean {
  if (filter.methods.size && !filter.methods.has(op.method.toUpperCase())) return false;
  if (filter.tag && !op.tags.includes(filter.tag)) return false;
  if (!words.length) return true;
  const hay = `${op.method} ${op.path} ${op.id} ${op.summary ?? ""} ${op.tags.join(" ")}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function groupOf(op: OperationRow, mode: GroupMode): string[] {
  if (mode === "path") {
    const first = op.path.split("/").filter(Boolean)[0];
    return [first ? `/${first}` : "/"];
  }
  return op.tags.length ? op.tags : ["(untagged)"];
}

export interface BuildInput {
  apis: ApiSummary[];
  operations: ReadonlyMap<string, { rows?: OperationRow[]; error?: string }>;
  collapsedApis: ReadonlySet<string>;
  /** Group keys the person toggled away from their default state. */
  toggledGroups: ReadonlySet<string>;
  mode: GroupMode;
  filter: Filter;
}

export function groupKey(api: string, mode: GroupMode, name: string): string {
  return `${api}\u0000${mode}\u0000${name}`;
}

export function buildRows(input: BuildInput): SidebarRow[] {
  const { apis, operations, collapsedApis, toggledGroups, mode, filter } = input;
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  const filtering = words.length > 0 || filter.methods.size > 0 || filter.tag !== "";
  const rows: SidebarRow[] = [];
  for (const api of apis) {
    const loaded = operations.get(api.name);
    const matched = loaded?.rows?.filter((op) => matchesFilter(op, filter, words));
    const expanded = !collapsedApis.has(api.name);
    if (filtering && matched && matched.length === 0) continue;
    rows.push({ kind: "api", key: `api:${api.name}`, api, expanded, matches: filtering ? matched?.length : undefined });
    if (!expanded) continue;
    if (loaded?.error) {
      rows.push({ kind: "note", key: `note:${api.name}`, api: api.name, text: `Could not load operations: ${loaded.error}`, tone: "error" });
      continue;
    }
    if (!matched) {
      rows.push({ kind: "note", key: `note:${api.name}`, api: api.name, text: "Loading operations…" });
      continue;
    }
    if (matched.length === 0) {
      rows.push({ kind: "note", key: `note:${api.name}`, api: api.name, text: "This API has no operations." });
      continue;
    }
    if (words.length) {
      // Searching: a flat list, best matches first, reads better than groups.
      const query = words.join(" ");
      const ranked = [...matched].sort((a, b) => relevance(b, query) - relevance(a, query) || (a.summary ?? a.id).length - (b.summary ?? b.id).length);
      for (const op of ranked) rows.push({ kind: "op", key: `op:${api.name}:${op.id}`, api: api.name, op });
      continue;
    }
    const groups = new Map<string, OperationRow[]>();
    for (const op of matched) {
      for (const g of groupOf(op, mode)) {
        let list = groups.get(g);
        if (!list) groups.set(g, (list = []));
        list.push(op);
      }
    }
    const order = mode === "tag" ? tagOrder(api, groups) : [...groups.keys()].sort();
    const foldByDefault = !filtering && api.operationCount > FOLD_GROUPS_ABOVE;
    for (const name of order) {
      const ops = groups.get(name)!;
      const key = groupKey(api.name, mode, name);
      const open = toggledGroups.has(key) ? foldByDefault : !foldByDefault;
      rows.push({ kind: "group", key: `group:${key}`, api: api.name, name, count: ops.length, expanded: open });
      if (!open) continue;
      for (const op of ops) rows.push({ kind: "op", key: `op:${api.name}:${name}:${op.id}`, api: api.name, op });
    }
  }
  return rows;
}

/** Tags in the order the spec declares them, then any others alphabetically, untagged last. */
function tagOrder(api: ApiSummary, groups: Map<string, OperationRow[]>): string[] {
  const declared = api.tags.map((t) => t.name).filter((n) => groups.has(n));
  const seen = new Set(declared);
  const rest = [...groups.keys()].filter((g) => !seen.has(g) && g !== "(untagged)").sort();
  return [...declared, ...rest, ...(groups.has("(untagged)") ? ["(untagged)"] : [])];
}

/** How well an operation answers a typed query: whole phrases in the summary beat scattered words. */
export function relevance(op: OperationRow, query: string): number {
  const summary = (op.summary ?? "").toLowerCase();
  const id = op.id.toLowerCase();
  const path = op.path.toLowerCase();
  const squashed = query.replace(/\s+/g, "");
  if (summary === query || id === squashed) return 100;
  if (summary.startsWith(query)) return 80;
  if (summary.includes(query)) return 60;
  if (id.includes(squashed)) return 50;
  if (path.includes(query)) return 40;
  return 10;
}
