package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/askonce/askonce/internal/sqlstore"
)

// jobColumns are every job column of jobFrom, in jobTable's order: what
// scanJob reads.
var jobColumns = sqlstore.Names(columnsWhere(func(*sqlstore.Column) bool { return true }), readExpr, ", ")

// logIDSQL is logID in SQL: the rowid of the first record of kind of the
// job whose log_seq is the expression seq (OR n to it for record n).
func logIDSQL(seq string, kind logKind) string {
	return fmt.Sprintf("((%s << 32) | (%d << 30))", seq, kind)
}

// logNSQL is the n of the job_log rowid id: its attempt number or event id.
func logNSQL(id string) string { return fmt.Sprintf("(%s & %d)", id, logMaxN) }

// jobJoins joins a job j to what jobColumns read besides its row: its
// fixed fields, its job_log record of kind 0 (s), and its result, unless
// the row holds it, the raw output of its attempt result_attempt (r).
var jobJoins = " JOIN job_log s ON s.id = " + logIDSQL("j.log_seq", logJob) +
	" LEFT JOIN job_log r ON r.id = " + logIDSQL("j.log_seq", logAttempt) + " | j.result_attempt"

// jobFrom is the FROM clause of jobColumns.
var jobFrom = " FROM jobs j" + jobJoins

// updateRes and updateRef are the parameters of updateJobSQL that hold
// the result and its attempt (resultRef): numbered, since each is used
// more than once, after the state columns, the four sums and updated_at.
var (
	updateRes = fmt.Sprintf("?%d", len(stateColumns)+6)
	updateRef = fmt.Sprintf("?%d", len(stateColumns)+7)
)

// resultCarried is true when the result of an update (updateRes) is the
// one the row refers to already: then the reference stays.
var resultCarried = `(` + updateRef + ` IS NULL AND ` + updateRes + ` IS NOT NULL AND jobs.result_attempt IS NOT NULL
	AND ` + updateRes + ` = (SELECT data FROM job_log WHERE id = ` + logIDSQL("jobs.log_seq", logAttempt) + ` | jobs.result_attempt))`

// The round trip's statements that write several rows or index entries
// (insertJobSQL, updateJobSQL, insertLogSQL) are OR FAIL: a constraint
// they break ends the statement and leaves the rows it wrote before,
// where the default, ABORT, undoes them. For ABORT SQLite keeps a
// statement journal inside a transaction, a copy of every page such a
// statement changes (a RETURNING or a VALUES of several rows makes one
// needed): 2.6 % of a round trip's CPU in its profile. Nothing is lost:
// a write whose statement fails fails, and is rolled back whole, in a
// transaction of its own or to its savepoint in a group commit
// (writer.go; TestWriteFailingMidStatementLeavesNothing). A write that
// went on after a failed statement would need ABORT back.
var (
	// insertJobSQL numbers the new job after the last one (nextLogSeqSQL)
	// in the same statement and returns its number.
	insertJobSQL = "INSERT OR FAIL INTO jobs (" + sqlstore.Names(jobsColumns, nil, ", ") + ", log_seq, result_attempt) VALUES (" +
		sqlstore.Question.Params(len(jobsColumns)) + ", (" + nextLogSeqSQL + "), ?) RETURNING log_seq"

	// updateJobSQL is the compare-and-set. The result and its attempt
	// (resultRef) come as updateRes and updateRef: parameters, not a
	// FROM clause, so that SQLite updates the row in one pass instead of
	// first copying it into a temporary table. The sums over attempts
	// are added to, never overwritten, and come back with the job's
	// log_seq, its last event's job_log id (NULL when it has none) and
	// whether the change changes the fixed columns of jobs (their values
	// follow the WHERE's; bit 0) and of the job's job_log record (then
	// theirs; bit 1). The new version is the one of the WHERE plus one.
	// Every column of the result costs the driver two calls into SQLite
	// (its name and its type) and a string, on every update.
	updateJobSQL = "UPDATE OR FAIL jobs SET " + sqlstore.Names(stateColumns, nil, " = ?, ") + " = ?" +
		`, prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?,
		cost_usd = cost_usd + ?, attempt_count = attempt_count + ?,
		version = version + 1, updated_at = ?,
		(result, result_attempt) = (SELECT CASE WHEN rc.carried THEN NULL ELSE ` + updateRes + ` END,
			CASE WHEN ` + updateRef + ` IS NOT NULL THEN ` + updateRef + ` WHEN rc.carried THEN jobs.result_attempt END
			FROM (SELECT ` + resultCarried + ` AS carried) AS rc)
		WHERE tenant_id = ? AND id = ? AND version = ?
		RETURNING prompt_tokens, completion_tokens, cost_usd, attempt_count, log_seq,
		(SELECT id FROM job_log WHERE id > ` + logIDSQL("jobs.log_seq", logEvent) + ` AND id < ` + logIDSQL("jobs.log_seq", logEvent+1) + ` ORDER BY id DESC LIMIT 1),
		(` + sqlstore.Names(fixedJobs, nil, " IS NOT ? OR ") + " IS NOT ?)" +
		" | (EXISTS (SELECT 1 FROM job_log s WHERE s.id = " + logIDSQL("jobs.log_seq", logJob) + " AND (" + sqlstore.Names(fixedStatic, tableAlias, " IS NOT ? OR ") + " IS NOT ?)) << 1)"

	// The fixed columns are written only when a change does change them
	// (updateJobSQL tells). The values are ?1... in column order, then
	// the job id.
	updateFixedSQL = "UPDATE jobs SET " + sqlstore.Question.Assign(fixedJobs, 1) +
		fmt.Sprintf(" WHERE id = ?%d AND (", len(fixedJobs)+1) + changedIf(fixedJobs) + ")"
	updateStaticSQL = "UPDATE job_log SET " + sqlstore.Question.Assign(fixedStatic, 1) +
		fmt.Sprintf(" WHERE id = (SELECT %s FROM jobs WHERE id = ?%d) AND (", logIDSQL("log_seq", logJob), len(fixedStatic)+1) + changedIf(fixedStatic) + ")"

	selectJobSQL = "SELECT " + jobColumns + jobFrom + " WHERE j.tenant_id = ? AND j.id = ?"

	// A new job's number follows the last one's: one seek to the end of
	// job_log.
	nextLogSeqSQL = `SELECT COALESCE(max(id) >> 32, 0) + 1 FROM job_log`
	// A job's last event: one seek to the end of its events (the rowids
	// from logID(seq, logEvent, 0) to logID(seq, logEvent+1, 0)).
	lastEventIDSQL = `SELECT id FROM job_log WHERE id > ? AND id < ? ORDER BY id DESC LIMIT 1`

	// The records of a job are the tenant's when the job is; they are
	// the rowids from logID(log_seq, kind, 0) on.
	attemptsSQL = "SELECT " + logNSQL("l.id") + `, l.at, l.type, l.data, l.more
			FROM jobs j JOIN job_log l ON l.id >= ` + logIDSQL("j.log_seq", logAttempt) + " AND l.id < " + logIDSQL("j.log_seq", logEvent) + `
			WHERE j.id = ? AND j.tenant_id = ? ORDER BY l.id`
	eventsSQL = "SELECT " + logNSQL("l.id") + `, j.tenant_id, j.id, l.type, l.at, l.data
			FROM jobs j JOIN job_log l ON l.id > ` + logIDSQL("j.log_seq", logEvent) + " | ?3 AND l.id < " + logIDSQL("j.log_seq", logDispatch) + `
			WHERE j.id = ?1 AND j.tenant_id = ?2 ORDER BY l.id LIMIT ?4`

	// LapsedLeases reads jobs_active (migration 00010), which covers it;
	// SQLite uses a partial index only when the query repeats its WHERE.
	lapsedLeasesSQL = `SELECT tenant_id, id FROM jobs
			WHERE status = 'planning' AND status IN ('planning', 'pending') AND mode = 'managed'
			AND (lease_until <= ?1 OR (?2 <> '' AND lease_owner = ?2))
			ORDER BY lease_until, id LIMIT ?3`
)

// maxLogRows is the most job_log records one statement inserts: a
// change's job_log records (a new job's kind 0 record, its attempts and
// events) are one statement up to it.
const maxLogRows = 8

// logColumns are the columns of job_log, in the order of insertLogSQL's
// values.
var logColumns = []string{"id", "at", "type", "data", "more", "candidates", "memory"}

// logWidth is the number of values of a job_log record but a job's
// kind 0 record (logRows): its last columns, candidates and memory,
// only a kind 0 record sets. The others' are NULL in the statement's
// text, not bound: every value bound costs the driver a call into
// SQLite (and its mutex), two NULLs a record about a percent of a
// round trip's CPU.
const logWidth = 5

// insertLogSQL inserts n job_log records (logRows): with full, the
// first with every column, a job's kind 0 record; the others with
// logWidth values and NULL for the rest.
func insertLogSQL(n int, full bool) string {
	params := func(k int) string { return strings.TrimSuffix(strings.Repeat("?, ", k), ", ") }
	nulls := strings.Repeat(", NULL", len(logColumns)-logWidth)
	rows := make([]string, n)
	for i := range rows {
		rows[i] = "(" + params(logWidth) + nulls + ")"
	}
	if full {
		rows[0] = "(" + params(len(logColumns)) + ")"
	}
	return "INSERT OR FAIL INTO job_log (" + strings.Join(logColumns, ", ") + ") VALUES " + strings.Join(rows, ", ")
}

// writeStmts are the writer's statements, used inside its transactions.
type writeStmts struct {
	insertJob     *wstmt
	updateJob     *wstmt
	selectJob     *wstmt
	addUsage      *wstmt
	insertLog     [maxLogRows]*wstmt // insertLog[n-1] inserts n job_log records
	insertLogFull [maxLogRows]*wstmt // the same, the first a kind 0 record
	lastEventID   *wstmt
	logSeq        *wstmt
	updateFixed   *wstmt
	updateStatic  *wstmt
	changes       *wstmt
	takeOverKey   *wstmt
	renewPlanning *wstmt
	savepoint     *wstmt
	release       *wstmt
	rollbackTo    *wstmt

	// A write transaction on the driver's connection (rawTx), never
	// run on the pool.
	begin, commit, rollback *wstmt
}

// prepare prepares every fixed statement once on the writer's pool (for
// the writes with hooks; the driver's connection prepares its own on
// first use). database/sql re-prepares a statement on each new
// connection of a pool by itself.
func (s *Store) prepare(ctx context.Context) error {
	type named struct {
		st    **wstmt
		query string
	}
	// add adds each of list to the writer's statements, prepared on db's
	// pool unless db is nil.
	add := func(db *sql.DB, list []named) error {
		for _, p := range list {
			st, err := s.wstmts.add(ctx, db, p.query)
			if err != nil {
				return err
			}
			*p.st = st
		}
		return nil
	}
	if err := add(s.writer, []named{
		{&s.w.insertJob, insertJobSQL},
		{&s.w.updateJob, updateJobSQL},
		{&s.w.selectJob, selectJobSQL},
		{&s.w.addUsage, `UPDATE jobs SET
			prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?,
			cost_usd = cost_usd + ?, attempt_count = attempt_count + 1
			WHERE tenant_id = ? AND id = ? RETURNING log_seq`},
		{&s.w.lastEventID, lastEventIDSQL},
		{&s.w.logSeq, `SELECT log_seq FROM jobs WHERE tenant_id = ? AND id = ?`},
		{&s.w.updateFixed, updateFixedSQL},
		{&s.w.updateStatic, updateStaticSQL},
		// The rows the last INSERT, UPDATE or DELETE wrote: those a
		// failed one wrote before it failed (OR FAIL).
		{&s.w.changes, `SELECT changes()`},
		{&s.w.savepoint, `SAVEPOINT write`},
		{&s.w.release, `RELEASE write`},
		{&s.w.rollbackTo, `ROLLBACK TO write`},

		// An in-flight claim whose owner holds no live lease is taken over.
		{&s.w.takeOverKey, `UPDATE idempotency SET owner = ?
			WHERE tenant_id = ? AND key = ? AND status = 0 AND fingerprint = ?
			AND NOT EXISTS (SELECT 1 FROM idempotency_leases l
				WHERE l.owner = idempotency.owner AND l.expires_at > ?)
			RETURNING job_id, base_version, created_at`},
		{&s.w.renewPlanning, `UPDATE jobs SET lease_until = ?
			WHERE tenant_id = ? AND id = ? AND lease_owner = ?
			AND status = 'planning' AND mode = 'managed'`},
	}); err != nil {
		return err
	}
	// Run only on the driver's connection (rawTx), not prepared on the
	// pool. Write transactions take the write lock at BEGIN, as the
	// writer's _txlock makes the driver's do (dsn).
	if err := add(nil, []named{
		{&s.w.begin, `BEGIN IMMEDIATE`},
		{&s.w.commit, `COMMIT`},
		{&s.w.rollback, `ROLLBACK`},
	}); err != nil {
		return err
	}
	for n := range s.w.insertLog {
		for _, full := range []bool{false, true} {
			st, err := s.wstmts.add(ctx, s.writer, insertLogSQL(n+1, full))
			if err != nil {
				return err
			}
			if full {
				s.w.insertLogFull[n] = st
			} else {
				s.w.insertLog[n] = st
			}
		}
	}
	s.readStmts.db = s.reader
	s.writeShared.s = s
	if err := s.writeShared.prepareAll(ctx, sqlstore.Shared()); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	return nil
}

// statements lists every statement prepared on a pool, for Close.
func (s *Store) statements() []*sql.Stmt {
	ws := []*wstmt{
		s.w.insertJob, s.w.updateJob, s.w.selectJob, s.w.addUsage,
		s.w.lastEventID, s.w.logSeq, s.w.updateFixed, s.w.updateStatic,
		s.w.changes, s.w.takeOverKey, s.w.renewPlanning,
		s.w.savepoint, s.w.release, s.w.rollbackTo,
	}
	ws = append(append(append(ws, s.w.insertLog[:]...), s.w.insertLogFull[:]...), s.writeShared.all()...)
	var st []*sql.Stmt
	for _, w := range ws {
		if w != nil && w.db != nil {
			st = append(st, w.db)
		}
	}
	return append(st, s.readStmts.all()...)
}
