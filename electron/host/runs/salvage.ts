/**
 * Salvage: copies every row that can still be read from a damaged run store
 * into a new one, so that a few damaged pages cost the runs on those pages,
 * not the whole history. node:sqlite has no `.recover` (its SQLite lacks the
 * sqlite_dbpage table), so this is the row-by-row copy:
 *
 * - each table is read in rowid order; when a damaged page stops the scan,
 *   the remaining rowids are read one by one (a point lookup only fails when
 *   its own page path is damaged), up to the highest rowid any readable
 *   source knows of;
 * - the unique index on each table's key (a separate b-tree, usually intact)
 *   names the rows that existed, so the runs that could not be read are
 *   reported by id rather than guessed at;
 * - a call whose run was lost, a pending decision whose call was lost, and a
 *   parent link to a lost run are dropped (the links would point nowhere);
 *   everything else is copied exactly, and the new store's triggers rebuild
 *   its text index.
 *
 * The damaged file is only read (read-only connection); it stays beside the
 * new store for a person, or a better tool, to look at.
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";

export interface SalvageReport {
  runs: { copied: number; lost: number; /** Ids of lost runs, where the key index still names them (at most 20). */ lostIds: string[] };
  calls: { copied: number; lost: number };
  allowRules: { copied: number };
  pendingDecisions: { copied: number; lost: number };
}

type Row = Record<string, SQLInputValue>;

interface TablePlan {
  table: string;
  /** The INTEGER PRIMARY KEY (or `rowid`). */
  rowid: string;
  /** The unique index of the table's key, and the key columns it covers. */
  keyIndex: string;
  key: string[];
}

const MAX_NAMED_LOST = 20;

/** Copies what can be read from the store at `sourcePath` into `target` (a migrated, empty store). */
export function salvageRuns(sourcePath: string, target: DatabaseSync): SalvageReport {
  const source = new DatabaseSync(sourcePath, { readOnly: true });
  // Lets SQLite read a file shorter than its header says (truncated) instead of refusing it whole;
  // harmless on a read-only connection, which cannot write the schema anyway.
  source.exec("PRAGMA writable_schema = ON");
  try {
    const targetColumns = (table: string) => new Set((target.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
    const runs = readTable(source, { table: "runs", rowid: "seq", keyIndex: "sqlite_autoindex_runs_1", key: ["id"] });
    const calls = readTable(source, { table: "calls", rowid: "seq", keyIndex: "sqlite_autoindex_calls_1", key: ["run_id", "idx"] });
    const pending = readTable(source, { table: "pending_decisions", rowid: "rowid", keyIndex: "sqlite_autoindex_pending_decisions_1", key: ["run_id"] });
    const rules = scanAll(source, "SELECT * FROM allow_rules");
    // Absent from stores older than schema version 6: then nothing to copy.
    const runApis = scanAll(source, "SELECT * FROM run_apis");

    // A row read off a damaged page can be garbage our schema refuses (a NULL key): it counts as lost, like an unreadable one.
    const readableRuns = runs.rows.filter((r) => typeof r.id === "string");
    const runIds = new Set(readableRuns.map((r) => r.id as string));
    const keptCalls = calls.rows.filter((c) => runIds.has(c.run_id as string));
    const callKeys = new Set(keptCalls.map((c) => `${String(c.run_id)}\u0000${String(c.idx)}`));
    const keptPending = pending.rows.filter((p) => callKeys.has(`${String(p.run_id)}\u0000${String(p.call_index)}`));
    const keptApis = runApis.rows.filter((a) => runIds.has(a.run_id as string));
    const copied = { runs: 0, calls: 0, pending: 0 };

    target.exec("BEGIN IMMEDIATE");
    try {
      // Rows go in rowid order; a link that points forward is checked at commit, not per row.
      target.exec("PRAGMA defer_foreign_keys = ON");
      // A row read from a damaged page can hold garbage a constraint refuses: it is lost alone, not the whole salvage.
      const insertRun = inserter(target, "runs", targetColumns("runs"));
      for (const run of readableRuns) {
        if (insertRun({ ...run, parent_id: run.parent_id !== null && runIds.has(run.parent_id as string) ? (run.parent_id as string) : null })) copied.runs++;
        else runIds.delete(run.id as string);
      }
      const insertCall = inserter(target, "calls", targetColumns("calls"));
      for (const call of keptCalls) if (runIds.has(call.run_id as string) && insertCall(call)) copied.calls++;
      const insertPending = inserter(target, "pending_decisions", targetColumns("pending_decisions"));
      for (const decision of keptPending) if (runIds.has(decision.run_id as string) && insertPending(decision)) copied.pending++;
      const insertRule = inserter(target, "allow_rules", targetColumns("allow_rules"), "OR IGNORE");
      for (const rule of rules.rows) insertRule(rule);
      if (targetColumns("run_apis").size > 0) {
        const insertApi = inserter(target, "run_apis", targetColumns("run_apis"), "OR IGNORE");
        for (const api of keptApis) if (runIds.has(api.run_id as string)) insertApi(api);
      }
      if (targetColumns("run_plans").size > 0) {
        const insertPlan = inserter(target, "run_plans", targetColumns("run_plans"), "OR IGNORE");
        for (const plan of scanAll(source, "SELECT * FROM run_plans").rows) if (runIds.has(plan.run_id as string)) insertPlan(plan);
      }
      target.exec("COMMIT");
    } catch (err) {
      target.exec("ROLLBACK");
      throw err;
    }
    const lostRunIds = [...runs.lostKeys.map((k) => k[0] as string), ...runs.rows.filter((r) => typeof r.id === "string" && !runIds.has(r.id)).map((r) => r.id as string)];
    const lostRuns = runs.rows.length - copied.runs + runs.lostKeys.length;
    return {
      runs: { copied: copied.runs, lost: lostRuns, lostIds: lostRunIds.slice(0, MAX_NAMED_LOST) },
      calls: { copied: copied.calls, lost: calls.lostKeys.length + (calls.rows.length - copied.calls) },
      allowRules: { copied: rules.rows.length },
      pendingDecisions: { copied: copied.pending, lost: pending.lostKeys.length + (pending.rows.length - copied.pending) },
    };
  } finally {
    source.close();
  }
}

/** Every readable row of a table, and the keys (from its key index) of rows that exist but could not be read. */
function readTable(source: DatabaseSync, plan: TablePlan): { rows: Row[]; lostKeys: SQLInputValue[][] } {
  const known = scanAll(source, `SELECT ${plan.rowid} AS _rowid, ${plan.key.join(", ")} FROM ${plan.table} INDEXED BY ${plan.keyIndex}`).rows;
  const select = `SELECT ${plan.rowid} AS _rowid, * FROM ${plan.table}`;
  const scanned = scanAll(source, `${select} ORDER BY ${plan.rowid}`);
  const rows = new Map<number, Row>(scanned.rows.map((r) => [Number(r._rowid), r]));
  if (!scanned.complete) {
    // The scan stopped at a damaged page: look up each later rowid on its own.
    const last = scanned.rows.length ? Number(scanned.rows[scanned.rows.length - 1]!._rowid) : 0;
    let upper = Math.max(last, ...known.map((k) => Number(k._rowid)));
    try {
      upper = Math.max(upper, Number((source.prepare(`SELECT max(${plan.rowid}) AS m FROM ${plan.table}`).get() as { m: number | null }).m ?? 0));
    } catch {
      // The rightmost pages are damaged; the key index's rowids bound the search instead.
    }
    const lookup = source.prepare(`${select} WHERE ${plan.rowid} = ?`);
    for (let rowid = last + 1; rowid <= upper; rowid++) {
      try {
        const row = lookup.get(rowid) as Row | undefined;
        if (row) rows.set(rowid, row);
      } catch {
        // On a damaged page: counted as lost below if the key index knows it.
      }
    }
  }
  const lostKeys = known.filter((k) => !rows.has(Number(k._rowid))).map((k) => plan.key.map((column) => k[column]!));
  const clean = [...rows.values()].map(({ _rowid: _, ...row }) => row);
  return { rows: clean, lostKeys };
}

/** The rows a query yields until it ends or hits damage. */
function scanAll(source: DatabaseSync, sql: string): { rows: Row[]; complete: boolean } {
  const rows: Row[] = [];
  try {
    for (const row of source.prepare(sql).iterate()) rows.push(row as Row);
    return { rows, complete: true };
  } catch {
    return { rows, complete: false };
  }
}

/**
 * An insert of the columns both stores have (an older store may lack newer
 * columns; they stay at their defaults). False when the new store refuses the
 * row (a constraint): a row read off a damaged page can be garbage.
 */
function inserter(target: DatabaseSync, table: string, columns: Set<string>, conflict = ""): (row: Row) => boolean {
  const statements = new Map<string, ReturnType<DatabaseSync["prepare"]>>();
  return (row) => {
    const names = Object.keys(row).filter((name) => columns.has(name));
    const sql = `INSERT ${conflict} INTO ${table} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
    let statement = statements.get(sql);
    if (!statement) {
      statement = target.prepare(sql);
      statements.set(sql, statement);
    }
    try {
      statement.run(...names.map((name) => row[name]!));
      return true;
    } catch (err) {
      if ((err as { errcode?: number }).errcode !== undefined && ((err as { errcode: number }).errcode & 0xff) === SQLITE_CONSTRAINT) return false;
      throw err;
    }
  };
}

const SQLITE_CONSTRAINT = 19;
