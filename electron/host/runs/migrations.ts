/**
 * The run store's schema, as an ordered list of migrations. `PRAGMA
 * user_version` says how many have been applied; each runs in its own
 * transaction with the version bump, so a crash mid-migration leaves the file
 * at the previous version, never half-way. Never edit a released migration:
 * add a new one.
 */
import type { DatabaseSync } from "node:sqlite";

export interface Migration {
  version: number;
  name: string;
  up: (db: DatabaseSync) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "runs, calls, allow rules, pending decisions", up: createCoreTables },
  { version: 2, name: "indexes for listing and recovery", up: createListingIndexes },
  { version: 3, name: "text search (FTS5 trigram)", up: createTextSearch },
  { version: 4, name: "calls replayed from a parent run", up: addReplayedFrom },
  { version: 5, name: "approval fingerprints, retries after 401, reasons to ask again", up: addApprovalBinding },
  { version: 6, name: "late answers, cancel requests from other processes, the APIs a run used", up: addRunContinuity },
  { version: 7, name: "plans: forecast writes decided at once", up: addPlans },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  return row.user_version;
}

/**
 * Applies every migration above the file's version. BEGIN IMMEDIATE takes the
 * write lock first, and the version is read again under it, so two processes
 * opening a fresh store at once (the app and the CLI) do not both migrate.
 */
export function migrate(db: DatabaseSync, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const applied: number[] = [];
  for (const migration of migrations) {
    if (schemaVersion(db) >= migration.version) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      if (schemaVersion(db) < migration.version) {
        migration.up(db);
        db.exec(`PRAGMA user_version = ${migration.version}`);
        applied.push(migration.version);
      }
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  }
  return applied;
}

function createCoreTables(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE runs (
      seq            INTEGER PRIMARY KEY,
      id             TEXT NOT NULL UNIQUE,
      parent_id      TEXT REFERENCES runs(id) ON DELETE SET NULL,
      source_kind    TEXT NOT NULL CHECK (source_kind IN ('cli', 'ui', 'mcp')),
      source_client  TEXT,
      tool           TEXT NOT NULL CHECK (tool IN ('search', 'execute')),
      policy         TEXT NOT NULL CHECK (policy IN ('read_only', 'all')),
      program        TEXT NOT NULL,
      clock          INTEGER NOT NULL,
      seed           INTEGER NOT NULL,
      status         TEXT NOT NULL
                     CHECK (status IN ('running', 'pending', 'completed', 'failed', 'cancelled', 'interrupted')),
      failure_reason TEXT,
      envelope_json  TEXT,
      logs_json      TEXT NOT NULL DEFAULT '[]',
      created_at     TEXT NOT NULL,
      updated_at     TEXT NOT NULL,
      finished_at    TEXT,
      -- The process that last wrote the run: crash recovery leaves runs of live processes alone.
      owner_host     TEXT,
      owner_boot     INTEGER,
      owner_pid      INTEGER,
      owner_session  TEXT
    );

    CREATE TABLE calls (
      -- An explicit rowid: the text index refers to it, and VACUUM may renumber an implicit one.
      seq              INTEGER PRIMARY KEY,
      run_id           TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      idx              INTEGER NOT NULL CHECK (idx >= 0),
      completion_order INTEGER,
      api              TEXT NOT NULL,
      operation        TEXT NOT NULL,
      operation_id     TEXT,
      arguments_json   TEXT NOT NULL,
      arguments_hash   TEXT NOT NULL,
      request_json     TEXT,
      -- CallStatus split in two: the state, and the HTTP status when answered.
      state            TEXT NOT NULL
                       CHECK (state IN ('answered', 'in_flight', 'unknown', 'pending', 'denied', 'rejected', 'failed')),
      http_status      INTEGER CHECK ((state = 'answered') = (http_status IS NOT NULL)),
      response_json    TEXT,
      result_json      TEXT,
      error_json       TEXT,
      duration_ms      REAL,
      idempotency_key  TEXT,
      decision         TEXT,
      decided_by       TEXT,
      decided_at       TEXT,
      deny_message     TEXT,
      started_at       TEXT NOT NULL,
      finished_at      TEXT,
      UNIQUE (run_id, idx)
    );

    CREATE TABLE allow_rules (
      api          TEXT NOT NULL,
      operation_id TEXT NOT NULL,
      created_by   TEXT NOT NULL,
      created_at   TEXT NOT NULL,
      PRIMARY KEY (api, operation_id)
    ) WITHOUT ROWID;

    CREATE TABLE pending_decisions (
      run_id              TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      call_index          INTEGER NOT NULL,
      api                 TEXT NOT NULL,
      operation           TEXT NOT NULL,
      operation_id        TEXT,
      request_json        TEXT NOT NULL,
      arguments_json      TEXT NOT NULL,
      arguments_hash      TEXT NOT NULL,
      requested_by_kind   TEXT NOT NULL,
      requested_by_client TEXT,
      requested_at        TEXT NOT NULL,
      expires_at          TEXT,
      FOREIGN KEY (run_id, call_index) REFERENCES calls(run_id, idx) ON DELETE CASCADE
    );
  `);
}

function createListingIndexes(db: DatabaseSync): void {
  // Lists are newest first with `seq` as the tie-breaker; every index below
  // ends in created_at (and implicitly seq) so a filtered page is an index range.
  db.exec(`
    CREATE INDEX runs_by_created ON runs (created_at);
    CREATE INDEX runs_by_status ON runs (status, created_at);
    CREATE INDEX runs_by_source ON runs (source_kind, created_at);
    CREATE INDEX runs_by_parent ON runs (parent_id) WHERE parent_id IS NOT NULL;
    CREATE INDEX runs_running ON runs (status) WHERE status = 'running';
    CREATE INDEX calls_by_api ON calls (api, run_id);
    -- Covers the short-term text search over operation names without reading the (large) call rows.
    CREATE INDEX calls_operations ON calls (run_id, operation, operation_id);
    CREATE INDEX calls_in_flight ON calls (state) WHERE state = 'in_flight';
    CREATE INDEX pending_by_expiry ON pending_decisions (expires_at);
  `);
}

/**
 * Substring search (what a search box promises: "Pets" finds `listPets`) over
 * the program and logs of each run, and over the operation names of its calls.
 * Both FTS tables are external-content (they index the columns in place, no
 * second copy of the text) and kept in step by triggers, so no write path can
 * forget them. Terms shorter than three characters fall back to LIKE.
 */
function createTextSearch(db: DatabaseSync): void {
  db.exec(`
    CREATE VIRTUAL TABLE run_text USING fts5(
      program, logs_json, content = 'runs', content_rowid = 'seq', tokenize = 'trigram'
    );
    CREATE TRIGGER run_text_insert AFTER INSERT ON runs BEGIN
      INSERT INTO run_text (rowid, program, logs_json) VALUES (new.seq, new.program, new.logs_json);
    END;
    CREATE TRIGGER run_text_delete AFTER DELETE ON runs BEGIN
      INSERT INTO run_text (run_text, rowid, program, logs_json) VALUES ('delete', old.seq, old.program, old.logs_json);
    END;
    CREATE TRIGGER run_text_update AFTER UPDATE OF program, logs_json ON runs BEGIN
      INSERT INTO run_text (run_text, rowid, program, logs_json) VALUES ('delete', old.seq, old.program, old.logs_json);
      INSERT INTO run_text (rowid, program, logs_json) VALUES (new.seq, new.program, new.logs_json);
    END;

    CREATE VIRTUAL TABLE call_text USING fts5(
      operation, operation_id, content = 'calls', content_rowid = 'seq', tokenize = 'trigram'
    );
    CREATE TRIGGER call_text_insert AFTER INSERT ON calls BEGIN
      INSERT INTO call_text (rowid, operation, operation_id) VALUES (new.seq, new.operation, new.operation_id);
    END;
    CREATE TRIGGER call_text_delete AFTER DELETE ON calls BEGIN
      INSERT INTO call_text (call_text, rowid, operation, operation_id)
        VALUES ('delete', old.seq, old.operation, old.operation_id);
    END;
    CREATE TRIGGER call_text_update AFTER UPDATE OF operation, operation_id ON calls BEGIN
      INSERT INTO call_text (call_text, rowid, operation, operation_id)
        VALUES ('delete', old.seq, old.operation, old.operation_id);
      INSERT INTO call_text (rowid, operation, operation_id) VALUES (new.seq, new.operation, new.operation_id);
    END;
  `);
}

/** A call answered from the parent run's saved result (an edit-and-re-run) names that run. */
function addReplayedFrom(db: DatabaseSync): void {
  db.exec("ALTER TABLE calls ADD COLUMN replayed_from TEXT");
}

/**
 * What a person approved is bound by a fingerprint of the request they saw; a
 * call retried after a 401 keeps its first exchange; a decision asked again says why.
 */
function addApprovalBinding(db: DatabaseSync): void {
  db.exec(`
    ALTER TABLE calls ADD COLUMN request_fingerprint TEXT;
    ALTER TABLE calls ADD COLUMN first_attempt_json TEXT;
    ALTER TABLE pending_decisions ADD COLUMN changes_json TEXT;
  `);
}

/** A run's plan (the writes its forecast made) and the person's decision on it; which plan write a call was sent as. */
function addPlans(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE run_plans (
      run_id          TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      plan_json       TEXT NOT NULL,
      status          TEXT NOT NULL,
      approved_writes INTEGER,
      decided_by      TEXT,
      decided_at      TEXT,
      created_at      TEXT NOT NULL
    );
    ALTER TABLE calls ADD COLUMN plan_write INTEGER;
    ALTER TABLE runs ADD COLUMN approvals TEXT;
  `);
}

/**
 * Records that stay true after the run: a call that ended after its run did
 * says so; a process that does not own a run can ask the owner to cancel it
 * (the owner polls this table); and a run keeps the definitions of the APIs it
 * used (spec hash and settings), so that any process can continue it.
 */
function addRunContinuity(db: DatabaseSync): void {
  db.exec(`
    ALTER TABLE calls ADD COLUMN ended_after_run INTEGER CHECK (ended_after_run IN (1));

    CREATE TABLE cancel_requests (
      run_id       TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      requested_by TEXT NOT NULL,
      requested_at TEXT NOT NULL
    );

    CREATE TABLE run_apis (
      run_id          TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      name            TEXT NOT NULL,
      definition_json TEXT NOT NULL,
      recorded_at     TEXT NOT NULL,
      PRIMARY KEY (run_id, name)
    );
  `);
}
