package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// jobColumns are every job column, as jobFrom names them, in jobTable's
// order: what sqlstore.ScanJob reads.
var jobColumns = sqlstore.Names(columnsWhere(func(*sqlstore.Column) bool { return true }), func(c *sqlstore.Column) string {
	if c.Static {
		return "s."
	}
	return "j."
}, ", ")

// shared are the statements both stores run.

// jobFrom is the FROM clause of jobColumns.
const jobFrom = " FROM jobs j JOIN jobs_static s ON s.id = j.id"

// ofTenant is the tenant test of a statement that finds one job by its
// id: "<col> IS NOT DISTINCT FROM <param>", where col is the job's
// tenant_id. No index serves IS NOT DISTINCT FROM, so the job is found
// by its primary key and its tenant checked on the row found; tenant_id
// is never NULL, so the test means =. With tenant_id = $n instead, an
// index that starts with tenant_id and holds id (jobs_by_tenant,
// jobs_by_tenant_session) serves both conditions, and without statistics
// (a new database, autovacuum off) the planner costs it as the primary
// key and picks it, in the plan a prepared statement keeps: a scan of
// every job of the tenant for each compare-and-set, growing with the
// jobs stored (TestJobByIDSeeksThePrimaryKey, docs/benchmarks.md).
func ofTenant(col, param string) string { return col + " IS NOT DISTINCT FROM " + param }

var (
	insertJobSQL = "INSERT INTO jobs (" + sqlstore.Names(jobsColumns, nil, ", ") + ") VALUES (" + sqlstore.Dollar.Params(len(jobsColumns)) + ")"

	insertStaticSQL = "INSERT INTO jobs_static (id, " + sqlstore.Names(staticColumns, nil, ", ") + ") VALUES (" +
		sqlstore.Dollar.Params(1+len(staticColumns)) + ")"

	// updateJobSQL is the compare-and-set, guarded: a version that moved
	// (or a job that is not there) fails the batch. The sums over
	// attempts are added to, never overwritten, and come back with the
	// new version.
	updateJobSQL = func() string {
		n := len(updatedColumns)
		return guarded("UPDATE jobs SET "+sqlstore.Dollar.Assign(updatedColumns, 1)+fmt.Sprintf(`,
		prompt_tokens = prompt_tokens + $%d, completion_tokens = completion_tokens + $%d,
		cost_usd = cost_usd + $%d, attempt_count = attempt_count + $%d,
		version = version + 1, updated_at = $%d
		WHERE id = $%d AND %s AND version = $%d`,
			n+1, n+2, n+3, n+4, n+5, n+7, ofTenant("tenant_id", fmt.Sprintf("$%d", n+6)), n+8),
			"version, prompt_tokens, completion_tokens, cost_usd, attempt_count")
	}()

	// updateStaticSQL rewrites jobs_static only when the change changes
	// it, which a transition never does: the row stays as created.
	updateStaticSQL = "UPDATE jobs_static SET " + sqlstore.Dollar.Assign(staticColumns, 2) +
		" WHERE id = $1 AND (" + sqlstore.Names(staticColumns, nil, ", ") + ") IS DISTINCT FROM ($2::text, $3::text[], $4::text[], $5::jsonb, $6::jsonb)"

	selectJobSQL = "SELECT " + jobColumns + jobFrom + " WHERE j.id = $2 AND " + ofTenant("j.tenant_id", "$1")

	jobExistsSQL = "SELECT 1 FROM jobs WHERE id = $2 AND " + ofTenant("tenant_id", "$1")
)

const (
	insertAttemptSQL = `INSERT INTO attempts
		(tenant_id, job_id, n, reason, started_at, duration_ns, outcome, raw, error,
		 prompt_tokens, completion_tokens, cost_usd)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
	insertEventSQL = `INSERT INTO events (job_id, tenant_id, type, at, data)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`
	insertDispatchSQL = `INSERT INTO dispatches (job_id, tenant_id, created_at, status, attempts, last_error)
		VALUES ($1, $2, $3, 'queued', 0, '')`
)

// addUsageSQL adds a retried attempt's usage, guarded: an unknown job
// fails the batch.
var addUsageSQL = guarded(`UPDATE jobs SET
		prompt_tokens = prompt_tokens + $1, completion_tokens = completion_tokens + $2,
		cost_usd = cost_usd + $3, attempt_count = attempt_count + 1
		WHERE id = $5 AND `+ofTenant("tenant_id", "$4"), "1")

// writeTimeout bounds a write once begun: it runs to the end even when
// the caller's context ends (so that a change is either committed or not,
// never left to a cancelled COMMIT), but not forever.
const writeTimeout = 30 * time.Second

// detach returns the context a write runs on once begun (see
// writeTimeout), or ctx's error if it ended before.
func detach(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	return ctx, cancel, nil
}

// write runs fn in a transaction and commits it. ctx only decides whether
// fn runs at all.
func (s *Store) write(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx) error) error {
	ctx, cancel, err := detach(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(ctx, tx) })
}

// batch is the statements of one write, each with the reader of its
// result, sent in one round trip. Sent on the pool, a batch is one
// transaction of its own (PostgreSQL runs the statements up to the
// protocol's Sync as an implicit transaction): a failed statement rolls
// back those before it, and the ones after it do not run.
type batch struct {
	b    pgx.Batch
	read []func(res pgx.BatchResults) error
}

func (q *batch) exec(sql string, args ...any) int {
	q.b.Queue(sql, args...)
	q.read = append(q.read, func(res pgx.BatchResults) error { _, err := res.Exec(); return err })
	return len(q.read) - 1
}

func (q *batch) row(scan func(row pgx.Row) error, sql string, args ...any) int {
	q.b.Queue(sql, args...)
	q.read = append(q.read, func(res pgx.BatchResults) error { return scan(res.QueryRow()) })
	return len(q.read) - 1
}

// batchError is the error of the statement at index i of a batch.
type batchError struct {
	i   int
	err error
}

func (e *batchError) Error() string { return e.err.Error() }
func (e *batchError) Unwrap() error { return e.err }

// failedAt returns the index of the statement err is the failure of, or
// -1.
func failedAt(err error) int {
	var be *batchError
	if errors.As(err, &be) {
		return be.i
	}
	return -1
}

// send sends the batch to to (the pool, or a transaction) and reads every
// result; a failure is a *batchError.
func (q *batch) send(ctx context.Context, to interface {
	SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
}) error {
	if len(q.read) == 0 {
		return nil
	}
	res := to.SendBatch(ctx, &q.b)
	for i, r := range q.read {
		if err := r(res); err != nil {
			res.Close()
			return &batchError{i, err}
		}
	}
	return res.Close()
}

// commit writes q, with the change c of job j (as written) when it has
// hooks to call: alone, q is one round trip and its own transaction; with
// hooks (River's inserts, which need a transaction object), q runs in an
// explicit transaction and the hooks after it.
func (s *Store) commit(ctx context.Context, q *batch, j *askonce.Job, c *askonce.Change) error {
	notify := c.Notify != "" && s.onNotify != nil
	dispatch := c.Dispatch && s.onDispatch != nil
	if !notify && !dispatch {
		ctx, cancel, err := detach(ctx)
		if err != nil {
			return err
		}
		defer cancel()
		return s.send(ctx, q)
	}
	return s.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if err := q.send(ctx, tx); err != nil {
			return err
		}
		if notify {
			if err := s.onNotify(ctx, tx, j, c.Notify); err != nil {
				return fmt.Errorf("queue %s notification: %w", c.Notify, err)
			}
		}
		if dispatch {
			queued := *j
			queued.Dispatch = askonce.DispatchQueued
			if err := s.onDispatch(ctx, tx, &queued); err != nil {
				return fmt.Errorf("queue dispatch: %w", err)
			}
		}
		return nil
	})
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

const (
	uniqueViolation = "23505"
	// noRow is the division by zero of a guarded statement (casSQL)
	// that matched no row.
	noRow = "22012"
	// badCharacter: text PostgreSQL cannot store, such as a NUL byte.
	badCharacter = "22021"
	badJSON      = "22P02"
)

// guarded wraps an UPDATE ... RETURNING so that matching no row is an
// error (division by zero, noRow), which ends the batch it is the first
// statement of and rolls it back: the statements after it then run only
// when the update did.
func guarded(update, returning string) string {
	// The guard is the preserved side of the join, and the join's
	// condition reads it, so that it is computed (not pruned as unused)
	// whether or not upd has a row.
	return "WITH upd AS (" + update + " RETURNING " + returning + ") " +
		"SELECT upd.* FROM (SELECT 1 / count(*) AS one FROM upd) AS guard LEFT JOIN upd ON guard.one = 1"
}

func (s *Store) CreateJob(ctx context.Context, c *askonce.Change) error {
	now := s.stamp()
	// The row as stored: the store's columns are the store's.
	ins, err := sqlstore.Inserted(c, now, micro)
	if err != nil {
		return err
	}
	job := c.Job
	args, err := sqlstore.Args(ins, jobsColumns)
	if err != nil {
		return fmt.Errorf("create job %s: %w", job.ID, err)
	}
	static, err := sqlstore.Args(ins, staticColumns)
	if err != nil {
		return fmt.Errorf("create job %s: %w", job.ID, err)
	}
	static = append([]any{job.ID}, static...)

	q := &batch{}
	first := q.exec(insertJobSQL, args...)
	q.exec(insertStaticSQL, static...)
	appended, _ := s.queueChange(q, ins, c, now)
	err = s.commit(ctx, q, ins, c)
	if failedAt(err) == first && pgCode(err) == uniqueViolation {
		return askonce.Errorf(askonce.ECONFLICT, "job %s already exists", job.ID)
	}
	if err != nil {
		return wrap(err, "create job %s", job.ID)
	}
	sqlstore.Created(c, ins, appended, sqlstore.HistoryOf(c, now, micro))
	return nil
}

// UpdateJob is the compare-and-set of askonce.Store. c.Job's columns are
// written only if the stored version is c.Job.Version; the usage sums and
// AttemptCount are not taken from c.Job but grow by c.Attempts. With
// c.Dispatch the job's dispatch is queued and its DispatchStatus becomes
// queued; a job that was dispatched already makes the whole change fail
// with ECONFLICT. c.Events take the job's tenant and id, At now when
// zero, and their assigned IDs; c.History takes the job's tenant, and its
// session, job and time when unset. c.AnswerLink is kept in answer_links,
// and c.Notify goes to Options.OnNotify, in the same transaction.
//
// The compare-and-set and everything that goes with it are one round
// trip (see batch) unless a hook is called; the compare-and-set comes
// first and holds the job's row until the commit, so that a job's events
// commit in the order of their ids.
func (s *Store) UpdateJob(ctx context.Context, c *askonce.Change) error {
	w, err := sqlstore.Written(c)
	if err != nil {
		return err
	}
	j := c.Job
	cols, err := sqlstore.Args(w, updatedColumns)
	if err != nil {
		return fmt.Errorf("update job %s: %w", j.ID, err)
	}
	static, err := sqlstore.Args(j, staticColumns)
	if err != nil {
		return fmt.Errorf("update job %s: %w", j.ID, err)
	}
	static = append([]any{j.ID}, static...)
	add := sqlstore.AttemptsUsage(c.Attempts)
	now := s.stamp()
	args := append(cols,
		add.PromptTokens, add.CompletionTokens, add.CostUSD, len(c.Attempts),
		now, j.TenantID, j.ID, j.Version)

	var (
		version int64
		usage   askonce.Usage
		count   int
	)
	q := &batch{}
	cas := q.row(func(row pgx.Row) error {
		return row.Scan(&version, &usage.PromptTokens, &usage.CompletionTokens, &usage.CostUSD, &count)
	}, updateJobSQL, args...)
	q.exec(updateStaticSQL, static...)
	written := *w
	written.Version, written.UpdatedAt = j.Version+1, now
	appended, dispatchAt := s.queueChange(q, &written, c, now)
	err = s.commit(ctx, q, &written, c)
	switch i := failedAt(err); {
	case i == cas && pgCode(err) == noRow:
		return s.lostUpdate(ctx, j)
	case i == dispatchAt && pgCode(err) == uniqueViolation:
		cur, _ := s.GetJob(ctx, j.TenantID, j.ID)
		return sqlstore.Dispatched(j.ID, cur)
	case err != nil:
		return wrap(err, "update job %s", j.ID)
	}
	sqlstore.Updated(c, version, now, usage, count, appended, sqlstore.HistoryOf(c, now, micro))
	return nil
}

// queueChange adds to q what goes with a change c of job j (as written):
// its attempts, events, history, answer link and dispatch. It returns
// c.Events as they will be stored, their IDs filled in once q ran (the
// caller copies them back only once q committed), and the index of the
// dispatch's statement (-1: none).
func (s *Store) queueChange(q *batch, j *askonce.Job, c *askonce.Change, now time.Time) ([]askonce.Event, int) {
	for i := range c.Attempts {
		q.exec(insertAttemptSQL, attemptArgs(j.TenantID, j.ID, &c.Attempts[i])...)
	}
	evs := make([]askonce.Event, len(c.Events))
	for i, e := range c.Events {
		e.TenantID, e.JobID = j.TenantID, j.ID
		if e.At.IsZero() {
			e.At = now
		} else {
			e.At = micro(e.At)
		}
		evs[i] = e
		q.row(func(row pgx.Row) error { return row.Scan(&evs[i].ID) },
			insertEventSQL, j.ID, j.TenantID, string(e.Type), e.At, rawArg(e.Data))
	}
	hs := sqlstore.FieldHistoryOf(c, micro)
	if h := sqlstore.HistoryOf(c, now, micro); h != nil {
		hs = append([]askonce.HistoryEntry{*h}, hs...)
	}
	for _, h := range hs {
		q.exec(sqlstore.UpsertHistory.String(), h.TenantID, h.SessionID, h.QuestionHash, string(h.Type),
			h.Question, h.Answer, h.JobID, h.At)
		if h.Scope == askonce.MemoryProject || h.Scope == askonce.MemoryTenant {
			q.exec(sqlstore.UpsertMemory.String(), h.TenantID, string(h.Scope), h.Project, h.QuestionHash, string(h.Type),
				h.Question, h.Answer, h.JobID, h.SessionID, h.At, timePtrArg(h.ExpiresAt))
		}
	}
	if r := c.Recalled; r != nil && r.Scope != askonce.MemorySession {
		q.exec(sqlstore.UseMemory.String(), j.TenantID, string(r.Scope), r.Project, r.QuestionHash)
	}
	if len(c.AnswerLink) > 0 {
		q.exec(sqlstore.InsertLink.String(), c.AnswerLink, j.TenantID, j.ID, now)
	}
	dispatchAt := -1
	if c.Dispatch {
		dispatchAt = q.exec(insertDispatchSQL, j.ID, j.TenantID, now)
	}
	// Delivered at commit, to the listeners of every process (Watch).
	q.exec(notifySQL, j.ID)
	return evs, dispatchAt
}

// lostUpdate explains why the compare-and-set of j changed no row: the
// job is gone (ENOTFOUND), or its version moved (ECONFLICT with the
// stored job).
func (s *Store) lostUpdate(ctx context.Context, j *askonce.Job) error {
	cur, err := s.GetJob(ctx, j.TenantID, j.ID)
	if err != nil {
		return err
	}
	return sqlstore.Conflict(j, cur)
}

// AddAttempt appends a, adds its usage to the job's sums and counts it,
// and appends ev (unless ev.Type is empty), in one transaction. The job's
// Version and UpdatedAt do not change. ENOTFOUND if the tenant has no such
// job.
func (s *Store) AddAttempt(ctx context.Context, tenant, jobID string, a askonce.Attempt, ev askonce.Event) error {
	now := s.stamp()
	q := &batch{}
	usage := q.row(func(row pgx.Row) error { return row.Scan(new(int)) },
		addUsageSQL, a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD, tenant, jobID)
	c := &askonce.Change{Attempts: []askonce.Attempt{a}}
	if ev.Type != "" {
		c.Events = []askonce.Event{ev}
	}
	j := &askonce.Job{TenantID: tenant, ID: jobID}
	s.queueChange(q, j, c, now)
	err := s.commit(ctx, q, j, c)
	if failedAt(err) == usage && pgCode(err) == noRow {
		return sqlstore.NotFound(jobID)
	}
	return wrap(err, "add attempt to job %s", jobID)
}

// listQuery is the ListJobs query for f and its arguments.
func listQuery(tenant string, f askonce.JobFilter) (string, []any, error) {
	bits, args, err := sqlstore.ListArgs(encoding{}, tenant, f)
	if err != nil {
		return "", nil, err
	}
	return own.List[bits].String(), args, nil
}

// RenewLeases moves r.Owner's leases on r.Jobs to r.Until, in one
// statement.
func (s *Store) RenewLeases(ctx context.Context, r askonce.LeaseRenewal) (int, error) {
	if len(r.Jobs) == 0 {
		return 0, nil
	}
	tenants, ids := make([]string, len(r.Jobs)), make([]string, len(r.Jobs))
	for i, j := range r.Jobs {
		tenants[i], ids[i] = j.TenantID, j.ID
	}
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET lease_until = $1
		WHERE lease_owner = $2 AND status = 'planning' AND mode = 'managed'
		AND (tenant_id, id) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
		leaseArg(r.Until), r.Owner, tenants, ids)
	if err != nil {
		return 0, wrap(err, "renew planning leases")
	}
	return int(tag.RowsAffected()), nil
}

// wrap adds context to an unexpected error and passes askonce's own errors
// through unchanged, so that their messages stay fit for callers. Text
// PostgreSQL cannot store (a NUL byte) and malformed JSON are the
// caller's: EINVALID.
func wrap(err error, format string, args ...any) error {
	if code := pgCode(err); code == badCharacter || code == badJSON {
		return &askonce.Error{Code: askonce.EINVALID, Message: fmt.Sprintf(format+": %v", append(args, err)...)}
	}
	return sqlstore.Wrap(err, unreachable, format, args...)
}
