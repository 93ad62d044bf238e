/**
 * Builds the SQL for listing runs: newest first, keyset-paginated on
 * (created_at, seq), filtered by status, source, API and free text. Keyset
 * (not OFFSET) so that page 200 costs what page 1 costs and a run arriving
 * while someone pages does not shift the pages under them.
 */
import type { SQLInputValue } from "node:sqlite";
import type { RunListFilter } from "../../../shared/runs.ts";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface ListQuery {
  sql: string;
  params: SQLInputValue[];
}

/** Where the previous page ended: the created_at and seq of the `before` run. */
export interface PageCursor {
  createdAt: string;
  seq: number;
}

const SUMMARY_COLUMNS = `
  r.id, r.parent_id, r.source_kind, r.source_client, r.tool, r.policy, r.status, r.failure_reason,
  substr(r.program, 1, 2000) AS program_head, r.created_at, r.updated_at,
  (SELECT count(*) FROM calls c WHERE c.run_id = r.id) AS call_count,
  ${apisOfRun("r.id")} AS apis_json`;

/** The APIs a run called, in order of first call, as a JSON array. */
export function apisOfRun(runIdColumn: string): string {
  return `(SELECT json_group_array(api) FROM
            (SELECT api FROM calls c WHERE c.run_id = ${runIdColumn} GROUP BY api ORDER BY min(c.idx)))`;
}

/** One run's summary, as a list row (for "run updated" events). */
export const SUMMARY_BY_ID = `SELECT ${SUMMARY_COLUMNS} FROM runs r WHERE r.id = ?`;

export function buildListQuery(filter: RunListFilter, cursor?: PageCursor): ListQuery {
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  if (filter.status && filter.status.length > 0) {
    where.push(`r.status IN (${filter.status.map(() => "?").join(", ")})`);
    params.push(...filter.status);
  }
  if (filter.source) {
    where.push("r.source_kind = ?");
    params.push(filter.source);
  }
  if (filter.api) {
    // EXISTS, walked newest first, stops at a full page; an IN list would collect every matching run first.
    where.push("EXISTS (SELECT 1 FROM calls c WHERE c.run_id = r.id AND c.api = ?)");
    params.push(filter.api);
  }
  for (const term of searchTerms(filter.text ?? "")) {
    const condition = termCondition(term);
    where.push(condition.sql);
    params.push(...condition.params);
  }
  if (cursor) {
    where.push("(r.created_at, r.seq) < (?, ?)");
    params.push(cursor.createdAt, cursor.seq);
  }
  params.push(pageSize(filter.limit));
  // The page is chosen first and summarised after: a sort computes its output columns for every
  // candidate row, and the call counts and API lists are worth computing for 50 rows only.
  // CROSS JOIN keeps that order of work: SQLite never reorders its operands.
  const sql = `SELECT ${SUMMARY_COLUMNS} FROM (
      SELECT r.seq FROM runs r
      ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY r.created_at DESC, r.seq DESC LIMIT ?
    ) page CROSS JOIN runs r ON r.seq = page.seq
    ORDER BY r.created_at DESC, r.seq DESC`;
  return { sql, params };
}

export function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

/** Words, or "quoted phrases"; every term must appear somewhere (program, logs or an operation name). */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|(\S+)/g)) {
    const term = (match[1] ?? match[2] ?? "").trim();
    if (term.length > 0) terms.push(term);
  }
  return terms;
}

/**
 * A trigram index answers substrings of three characters or more; shorter
 * terms fall back to LIKE, a scan that stays cheap because one- and
 * two-letter searches are rare and the page limit stops it early.
 */
function termCondition(term: string): { sql: string; params: SQLInputValue[] } {
  if ([...term].length >= 3) {
    const phrase = `"${term.replace(/"/g, '""')}"`;
    return {
      sql: `(r.seq IN (SELECT rowid FROM run_text WHERE run_text MATCH ?)
             OR r.id IN (SELECT c.run_id FROM call_text JOIN calls c ON c.seq = call_text.rowid WHERE call_text MATCH ?))`,
      params: [phrase, phrase],
    };
  }
  const like = `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return {
    sql: `(r.program LIKE ? ESCAPE '\\' OR r.logs_json LIKE ? ESCAPE '\\'
           OR EXISTS (SELECT 1 FROM calls c WHERE c.run_id = r.id
                      AND (c.operation LIKE ? ESCAPE '\\' OR c.operation_id LIKE ? ESCAPE '\\')))`,
    params: [like, like, like, like],
  };
}
