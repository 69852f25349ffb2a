package postgres

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// jobColumns are every job column, as jobFrom names them, in jobTable's
// order: what scanJob reads.
var jobColumns = func() string {
	parts := make([]string, len(jobTable))
	for i, c := range jobTable {
		if c.static {
			parts[i] = "s." + c.name
		} else {
			parts[i] = "j." + c.name
		}
	}
	return strings.Join(parts, ", ")
}()

// jobFrom is the FROM clause of jobColumns.
const jobFrom = " FROM jobs j JOIN jobs_static s ON s.id = j.id"

var (
	insertJobSQL = "INSERT INTO jobs (" + names(jobsColumns, "", ", ") + ") VALUES (" + params(1, len(jobsColumns)) + ")"

	insertStaticSQL = "INSERT INTO jobs_static (id, " + names(staticColumns, "", ", ") + ") VALUES (" +
		params(1, 1+len(staticColumns)) + ")"

	// updateJobSQL is the compare-and-set, guarded: a version that moved
	// (or a job that is not there) fails the batch. The sums over
	// attempts are added to, never overwritten, and come back with the
	// new version.
	updateJobSQL = func() string {
		n := len(updatedColumns)
		return guarded("UPDATE jobs SET "+assign(updatedColumns, 1)+fmt.Sprintf(`,
		prompt_tokens = prompt_tokens + $%d, completion_tokens = completion_tokens + $%d,
		cost_usd = cost_usd + $%d, attempt_count = attempt_count + $%d,
		version = version + 1, updated_at = $%d
		WHERE tenant_id = $%d AND id = $%d AND version = $%d`,
			n+1, n+2, n+3, n+4, n+5, n+6, n+7, n+8),
			"version, prompt_tokens, completion_tokens, cost_usd, attempt_count")
	}()

	// updateStaticSQL rewrites jobs_static only when the change changes
	// it, which a transition never does: the row stays as created.
	updateStaticSQL = "UPDATE jobs_static SET " + assign(staticColumns, 2) +
		" WHERE id = $1 AND (" + names(staticColumns, "", ", ") + ") IS DISTINCT FROM ($2::text, $3::text[], $4::text[], $5::jsonb)"

	selectJobSQL = "SELECT " + jobColumns + jobFrom + " WHERE j.tenant_id = $1 AND j.id = $2"
)

const (
	insertAttemptSQL = `INSERT INTO attempts
		(tenant_id, job_id, n, reason, started_at, duration_ns, outcome, raw, error,
		 prompt_tokens, completion_tokens, cost_usd)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
	insertEventSQL = `INSERT INTO events (job_id, tenant_id, type, at, data)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`
	upsertHistorySQL = `INSERT INTO history
		(tenant_id, session_id, question_hash, type, question, answer, job_id, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (tenant_id, session_id, question_hash) DO UPDATE SET
		type = excluded.type, question = excluded.question, answer = excluded.answer,
		job_id = excluded.job_id, at = excluded.at`
	// A job asks once, so its link is written once; the same row again is
	// harmless.
	insertLinkSQL = `INSERT INTO answer_links (token_hash, tenant_id, job_id, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (token_hash) DO NOTHING`
	insertDispatchSQL = `INSERT INTO dispatches (job_id, tenant_id, created_at, status, attempts, last_error)
		VALUES ($1, $2, $3, 'queued', 0, '')`
)

// addUsageSQL adds a retried attempt's usage, guarded: an unknown job
// fails the batch.
var addUsageSQL = guarded(`UPDATE jobs SET
		prompt_tokens = prompt_tokens + $1, completion_tokens = completion_tokens + $2,
		cost_usd = cost_usd + $3, attempt_count = attempt_count + 1
		WHERE tenant_id = $4 AND id = $5`, "1")

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
		return q.send(ctx, s.pool)
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
	if c == nil || c.Job == nil || c.Job.ID == "" {
		return askonce.Errorf(askonce.EINVALID, "create job: the job has no id")
	}
	job := c.Job
	now := s.stamp()
	created := now
	if !job.CreatedAt.IsZero() {
		created = micro(job.CreatedAt)
	}
	// The row as stored: the store's columns are the store's.
	ins := *job
	ins.Version, ins.Usage, ins.AttemptCount = 1, askonce.Usage{}, len(c.Attempts)
	for _, a := range c.Attempts {
		ins.Usage = ins.Usage.Add(a.Usage)
	}
	ins.CreatedAt, ins.UpdatedAt = created, created
	if c.Dispatch {
		ins.Dispatch = askonce.DispatchQueued
	}
	args, err := jobArgs(&ins, jobsColumns)
	if err != nil {
		return fmt.Errorf("create job %s: %w", job.ID, err)
	}
	static, err := jobArgs(&ins, staticColumns)
	if err != nil {
		return fmt.Errorf("create job %s: %w", job.ID, err)
	}
	static = append([]any{job.ID}, static...)

	q := &batch{}
	first := q.exec(insertJobSQL, args...)
	q.exec(insertStaticSQL, static...)
	appended, _ := s.queueChange(q, &ins, c, now)
	err = s.commit(ctx, q, &ins, c)
	if failedAt(err) == first && pgCode(err) == uniqueViolation {
		return askonce.Errorf(askonce.ECONFLICT, "job %s already exists", job.ID)
	}
	if err != nil {
		return wrap(err, "create job %s", job.ID)
	}
	job.Version = 1
	job.CreatedAt, job.UpdatedAt = created, created
	job.Usage, job.AttemptCount, job.Dispatch = ins.Usage, ins.AttemptCount, ins.Dispatch
	copy(c.Events, appended)
	if c.History != nil {
		*c.History = *historyOf(c, now)
	}
	return nil
}

// GetJob returns the tenant's job, or ENOTFOUND.
func (s *Store) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	j, err := scanJob(s.pool.QueryRow(ctx, selectJobSQL, tenant, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, askonce.Errorf(askonce.ENOTFOUND, "job %s not found", id)
	}
	if err != nil {
		return nil, wrap(err, "get job %s", id)
	}
	return j, nil
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
	if c == nil || c.Job == nil {
		return askonce.Errorf(askonce.EINVALID, "update job: the change has no job")
	}
	j := c.Job
	w := *j // as written
	if c.Dispatch {
		w.Dispatch = askonce.DispatchQueued
	}
	cols, err := jobArgs(&w, updatedColumns)
	if err != nil {
		return fmt.Errorf("update job %s: %w", j.ID, err)
	}
	static, err := jobArgs(j, staticColumns)
	if err != nil {
		return fmt.Errorf("update job %s: %w", j.ID, err)
	}
	static = append([]any{j.ID}, static...)
	var add askonce.Usage
	for _, a := range c.Attempts {
		add = add.Add(a.Usage)
	}
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
	written := w
	written.Version, written.UpdatedAt = j.Version+1, now
	appended, dispatchAt := s.queueChange(q, &written, c, now)
	err = s.commit(ctx, q, &written, c)
	switch i := failedAt(err); {
	case i == cas && pgCode(err) == noRow:
		return s.lostUpdate(ctx, j)
	case i == dispatchAt && pgCode(err) == uniqueViolation:
		e := &askonce.Error{Code: askonce.ECONFLICT, Message: fmt.Sprintf("job %s was dispatched already", j.ID)}
		if cur, err := s.GetJob(ctx, j.TenantID, j.ID); err == nil {
			e.Job = cur
		}
		return e
	case err != nil:
		return wrap(err, "update job %s", j.ID)
	}
	j.Version = version
	j.UpdatedAt = now
	j.Usage = usage
	j.AttemptCount = count
	if c.Dispatch {
		j.Dispatch = askonce.DispatchQueued
	}
	copy(c.Events, appended)
	if c.History != nil {
		*c.History = *historyOf(c, now)
	}
	return nil
}

// historyOf returns c.History as stored (Change.StoredHistory), its
// time to the microsecond in UTC.
func historyOf(c *askonce.Change, now time.Time) *askonce.HistoryEntry {
	h := c.StoredHistory(now)
	if h != nil {
		h.At = micro(h.At)
	}
	return h
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
	if h := historyOf(c, now); h != nil {
		q.exec(upsertHistorySQL, h.TenantID, h.SessionID, h.QuestionHash, string(h.Type),
			h.Question, h.Answer, h.JobID, h.At)
	}
	if len(c.AnswerLink) > 0 {
		q.exec(insertLinkSQL, c.AnswerLink, j.TenantID, j.ID, now)
	}
	dispatchAt := -1
	if c.Dispatch {
		dispatchAt = q.exec(insertDispatchSQL, j.ID, j.TenantID, now)
	}
	// Delivered at commit, to the listeners of every process (Watch).
	q.exec(notifySQL, j.ID)
	return evs, dispatchAt
}

// JobByAnswerLink returns the job whose answer link has hash, of any
// tenant, or ENOTFOUND.
func (s *Store) JobByAnswerLink(ctx context.Context, hash []byte) (*askonce.Job, error) {
	j, err := scanJob(s.pool.QueryRow(ctx, "SELECT "+jobColumns+` FROM answer_links l
		JOIN jobs j ON j.id = l.job_id AND j.tenant_id = l.tenant_id
		JOIN jobs_static s ON s.id = j.id
		WHERE l.token_hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, askonce.Errorf(askonce.ENOTFOUND, "no such answer link")
	}
	if err != nil {
		return nil, wrap(err, "find answer link")
	}
	return j, nil
}

// lostUpdate explains why the compare-and-set of j changed no row: the
// job is gone (ENOTFOUND), or its version moved (ECONFLICT with the
// stored job).
func (s *Store) lostUpdate(ctx context.Context, j *askonce.Job) error {
	cur, err := s.GetJob(ctx, j.TenantID, j.ID)
	if err != nil {
		return err
	}
	return &askonce.Error{
		Code:    askonce.ECONFLICT,
		Message: fmt.Sprintf("job %s changed concurrently: version is %d, the change was computed from %d", j.ID, cur.Version, j.Version),
		Job:     cur,
	}
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
		return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", jobID)
	}
	return wrap(err, "add attempt to job %s", jobID)
}

// Attempts returns the job's attempts by number. ENOTFOUND if the tenant
// has no such job.
func (s *Store) Attempts(ctx context.Context, tenant, jobID string) ([]askonce.Attempt, error) {
	out, err := queryAll(ctx, s, scanAttempt, `SELECT n, reason, started_at, duration_ns, outcome, raw, error,
		prompt_tokens, completion_tokens, cost_usd
		FROM attempts WHERE job_id = $1 AND tenant_id = $2 ORDER BY n`, jobID, tenant)
	if err != nil {
		return nil, wrap(err, "attempts of job %s", jobID)
	}
	if len(out) == 0 {
		if err := s.mustExist(ctx, tenant, jobID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Events returns up to limit of the job's events with ID > after, by ID.
// A limit <= 0 returns them all. ENOTFOUND if the tenant has no such job.
func (s *Store) Events(ctx context.Context, tenant, jobID string, after int64, limit int) ([]askonce.Event, error) {
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	out, err := queryAll(ctx, s, scanEvent, `SELECT id, tenant_id, job_id, type, at, data
		FROM events WHERE job_id = $1 AND tenant_id = $2 AND id > $3 ORDER BY id LIMIT $4`,
		jobID, tenant, after, lim)
	if err != nil {
		return nil, wrap(err, "events of job %s", jobID)
	}
	if len(out) == 0 {
		// Events are written with their job, so rows imply the job; only
		// an empty page needs to tell "no job" from "no more events".
		if err := s.mustExist(ctx, tenant, jobID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// queryAll runs a query and scans every row with pgx.CollectRows; never
// nil, so that an empty result is an empty JSON list.
func queryAll[T any](ctx context.Context, s *Store, scan func(interface{ Scan(...any) error }) (T, error), sql string, args ...any) ([]T, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
}

// mustExist returns ENOTFOUND unless the tenant has the job.
func (s *Store) mustExist(ctx context.Context, tenant, jobID string) error {
	var one int
	err := s.pool.QueryRow(ctx, `SELECT 1 FROM jobs WHERE tenant_id = $1 AND id = $2`, tenant, jobID).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", jobID)
	}
	if err != nil {
		return wrap(err, "find job %s", jobID)
	}
	return nil
}

// LookupHistory returns the session's answer to the question with the
// given hash, or ENOTFOUND.
func (s *Store) LookupHistory(ctx context.Context, tenant, session, hash string) (*askonce.HistoryEntry, error) {
	h, err := scanHistory(s.pool.QueryRow(ctx, `SELECT tenant_id, session_id, question_hash, type, question, answer, job_id, at
		FROM history WHERE tenant_id = $1 AND session_id = $2 AND question_hash = $3`, tenant, session, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, askonce.Errorf(askonce.ENOTFOUND, "session %s has no answer to question %s", session, hash)
	}
	if err != nil {
		return nil, wrap(err, "look up history of session %s", session)
	}
	return &h, nil
}

// History returns the session's answered questions, oldest (last
// answered) first.
func (s *Store) History(ctx context.Context, tenant, session string) ([]askonce.HistoryEntry, error) {
	out, err := queryAll(ctx, s, scanHistory, `SELECT tenant_id, session_id, question_hash, type, question, answer, job_id, at
		FROM history WHERE tenant_id = $1 AND session_id = $2 ORDER BY at, question_hash`, tenant, session)
	if err != nil {
		return nil, wrap(err, "history of session %s", session)
	}
	return out, nil
}

// listQuery is the ListJobs query for f and its arguments.
func listQuery(tenant string, f askonce.JobFilter) (string, []any, error) {
	var q strings.Builder
	q.WriteString("SELECT " + jobColumns + jobFrom + " WHERE j.tenant_id = $1")
	args := []any{tenant}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		q.WriteString(" AND j.status = " + arg(string(f.Status)))
		q.WriteString(statusIndexWhere(f.Status))
	}
	if f.SessionID != "" {
		q.WriteString(" AND j.session_id = " + arg(f.SessionID))
	}
	if f.Cursor != "" {
		at, id, ok := decodeCursor(f.Cursor)
		if !ok {
			return "", nil, askonce.Errorf(askonce.EINVALID, "cursor %q is not a cursor of this list", f.Cursor)
		}
		q.WriteString(" AND (j.created_at, j.id) < (" + arg(time.Unix(0, at).UTC()) + ", " + arg(id) + ")")
	}
	q.WriteString(" ORDER BY j.created_at DESC, j.id DESC LIMIT " + arg(f.PageLimit()+1))
	return q.String(), args, nil
}

// statusIndexWhere repeats the WHERE of the partial index that holds the
// jobs of a status, so that the planner uses it even in a generic plan:
// jobs_active (migration 00003) for the statuses in progress, jobs_ended
// and jobs_ended_by_session (00005) for those few jobs end in. Success,
// nearly every job's, is read through jobs_by_tenant.
func statusIndexWhere(st askonce.Status) string {
	switch st {
	case askonce.StatusPlanning, askonce.StatusPending:
		return " AND j.status IN ('planning', 'pending')"
	case askonce.StatusValidationError, askonce.StatusFailed, askonce.StatusCancelled, askonce.StatusExpired:
		return " AND j.status IN ('validation_error', 'failed', 'cancelled', 'expired')"
	}
	return ""
}

// ListJobs returns one page of the tenant's jobs, newest first (by
// CreatedAt, then ID). The cursor is the position of the previous page's
// last job, so pages neither skip nor repeat jobs created meanwhile. A
// cursor this store did not make is EINVALID.
func (s *Store) ListJobs(ctx context.Context, tenant string, f askonce.JobFilter) (*askonce.JobPage, error) {
	limit := f.PageLimit()
	q, args, err := listQuery(tenant, f)
	if err != nil {
		return nil, err
	}
	jobs, err := queryAll(ctx, s, scanJob, q, args...)
	if err != nil {
		return nil, wrap(err, "list jobs")
	}
	page := &askonce.JobPage{Jobs: jobs}
	if len(page.Jobs) > limit {
		page.Jobs = page.Jobs[:limit]
		last := page.Jobs[limit-1]
		page.NextCursor = encodeCursor(last.CreatedAt.UnixNano(), last.ID)
	}
	return page, nil
}

// A cursor is the base64 of "<created_at unix ns>.<job id>", as the
// SQLite store's.
func encodeCursor(createdAt int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(createdAt, 10) + "." + id))
}

func decodeCursor(c string) (int64, string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", false
	}
	at, id, ok := strings.Cut(string(b), ".")
	if !ok || id == "" || !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return 0, "", false
	}
	n, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return 0, "", false
	}
	return n, id, true
}

// DueQuestions returns pending jobs of every tenant whose question expired
// at or before now, earliest deadline first. A limit <= 0 returns them all.
func (s *Store) DueQuestions(ctx context.Context, now time.Time, limit int) ([]askonce.JobRef, error) {
	refs, err := s.refs(ctx, `SELECT tenant_id, id FROM jobs
		WHERE status = 'pending' AND clarification_expires_at IS NOT NULL
		AND clarification_expires_at <= $1
		ORDER BY clarification_expires_at, id LIMIT $2`, now, limit)
	if err != nil {
		return nil, wrap(err, "due questions")
	}
	return refs, nil
}

// LapsedLeases returns managed jobs of every tenant in planning whose lease
// ended at or before q.Now, or that q.Owner holds, earliest lease first.
func (s *Store) LapsedLeases(ctx context.Context, q askonce.LeaseQuery) ([]askonce.JobRef, error) {
	var lim any
	if q.Limit > 0 {
		lim = q.Limit
	}
	refs, err := queryAll(ctx, s, scanRef, `SELECT tenant_id, id FROM jobs
		WHERE status = 'planning' AND mode = 'managed'
		AND (lease_until <= $1 OR ($2 <> '' AND lease_owner = $2))
		ORDER BY lease_until, id LIMIT $3`, q.Now, q.Owner, lim)
	if err != nil {
		return nil, wrap(err, "lapsed leases")
	}
	return refs, nil
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

// Lead takes or keeps the leadership l.Name for l.Owner: see
// askonce.Store.Lead. Of two racing inserts of a new name, the second
// waits for the first and then finds a live lead of another owner.
func (s *Store) Lead(ctx context.Context, l askonce.Leadership) (bool, error) {
	var owner string
	err := s.pool.QueryRow(ctx, `INSERT INTO leaders (name, owner, until) VALUES ($1, $2, $4)
		ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
		WHERE leaders.owner = excluded.owner OR leaders.until <= $3
		RETURNING owner`, l.Name, l.Owner, l.Now, l.Until).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, wrap(err, "lead %s", l.Name)
	}
	return true, nil
}

func scanRef(row interface{ Scan(...any) error }) (askonce.JobRef, error) {
	var r askonce.JobRef
	err := row.Scan(&r.TenantID, &r.ID)
	return r, err
}

func (s *Store) refs(ctx context.Context, sql string, at time.Time, limit int) ([]askonce.JobRef, error) {
	var lim any
	if limit > 0 {
		lim = limit
	}
	return queryAll(ctx, s, scanRef, sql, at, lim)
}

// wrap adds context to an unexpected error and passes askonce's own errors
// through unchanged, so that their messages stay fit for callers. Text
// PostgreSQL cannot store (a NUL byte) and malformed JSON are the
// caller's: EINVALID.
func wrap(err error, format string, args ...any) error {
	var e *askonce.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	if code := pgCode(err); code == badCharacter || code == badJSON {
		return &askonce.Error{Code: askonce.EINVALID, Message: fmt.Sprintf(format+": %v", append(args, err)...)}
	}
	if unreachable(err) {
		return askonce.Unavailable(fmt.Errorf(format+": %w", append(args, err)...))
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
