package sqlite

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askonce/askonce"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// CreateJob inserts c.Job with Version 1 and, in the same transaction,
// writes what goes with it as UpdateJob does (writeWith): c.Attempts,
// c.Events, c.History, c.AnswerLink, c.Notify and, with c.Dispatch, the
// job's dispatch. CreatedAt and UpdatedAt are c.Job.CreatedAt, or now when
// it is zero. The usage sums and AttemptCount are not taken from c.Job:
// they are those of c.Attempts. A job id that exists already, in any
// tenant, is ECONFLICT, and then nothing is written.
func (s *Store) CreateJob(ctx context.Context, c *askonce.Change) error {
	if c == nil || c.Job == nil || c.Job.ID == "" {
		return askonce.Errorf(askonce.EINVALID, "create job: the job has no id")
	}
	job := c.Job
	now := s.stamp()
	created := now
	if !job.CreatedAt.IsZero() {
		created = fromNanos(job.CreatedAt.UnixNano())
	}
	// The row as stored: the store's columns start over.
	ins := *job
	ins.Version, ins.Usage, ins.AttemptCount = 1, attemptsUsage(c.Attempts), len(c.Attempts)
	ins.CreatedAt, ins.UpdatedAt = created, created
	if c.Dispatch {
		ins.Dispatch = askonce.DispatchQueued
	}
	args, err := jobArgs(&ins, jobsColumns)
	if err != nil {
		return wrap(err, "create job %s", job.ID)
	}
	static, err := jobArgs(&ins, staticColumns)
	if err != nil {
		return wrap(err, "create job %s", job.ID)
	}
	var ref any
	args[resultIndex], ref = resultRef(&ins, c.Attempts)
	hist := historyOf(c, now)

	var appended []askonce.Event
	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq int64
		if err := tx.StmtContext(ctx, s.w.nextLogSeq).QueryRowContext(ctx).Scan(&seq); err != nil {
			return wrap(err, "number the job")
		}
		if _, err := tx.StmtContext(ctx, s.w.insertJob).ExecContext(ctx, append(args, seq, ref)...); err != nil {
			if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
				return askonce.Errorf(askonce.ECONFLICT, "job %s already exists", job.ID)
			}
			return err
		}
		if _, err := tx.StmtContext(ctx, s.w.insertStatic).ExecContext(ctx, append([]any{logID(seq, logJob, 0)}, static...)...); err != nil {
			return err
		}
		appended, err = s.writeWith(ctx, tx, &ins, seq, c, hist, now)
		return err
	})
	if err != nil {
		return s.writeError(ctx, err, job, "create job %s", job.ID)
	}
	s.watchers.Wake(job.ID)
	job.Version = 1
	job.CreatedAt, job.UpdatedAt = created, created
	job.Usage, job.AttemptCount = ins.Usage, ins.AttemptCount
	job.Dispatch = ins.Dispatch
	wroteWith(c, appended, hist)
	return nil
}

// GetJob returns the tenant's job, or ENOTFOUND.
func (s *Store) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	j, err := scanJob(s.r.getJob.QueryRowContext(ctx, tenant, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, askonce.Errorf(askonce.ENOTFOUND, "job %s not found", id)
	}
	if err != nil {
		return nil, wrap(err, "get job %s", id)
	}
	return j, nil
}

// errDispatched is the failed insert of a second dispatch of a job.
var errDispatched = errors.New("dispatch already queued")

// UpdateJob is the compare-and-set of askonce.Store. c.Job's state
// columns are written only if the stored version is c.Job.Version; the
// usage sums and AttemptCount are not taken from c.Job but grow by
// c.Attempts. With c.Dispatch the job's dispatch is queued and its
// DispatchStatus becomes queued; a job that was dispatched already makes
// the whole change fail with ECONFLICT. c.Events take the job's tenant and
// id, At now when zero, and their assigned IDs; c.History takes the job's
// tenant, and its session, job and time when unset. c.AnswerLink is kept in
// answer_links, and c.Notify goes to Options.OnNotify, in the same
// transaction. The fields a job is created with (fixedColumn) are
// rewritten only when the change changes them, so that a transition
// writes the job row and the indexes on what it changes, no more.
func (s *Store) UpdateJob(ctx context.Context, c *askonce.Change) error {
	if c == nil || c.Job == nil {
		return askonce.Errorf(askonce.EINVALID, "update job: the change has no job")
	}
	j := c.Job
	w := *j // as written
	if c.Dispatch {
		w.Dispatch = askonce.DispatchQueued
	}
	state, err := jobArgs(&w, stateColumns)
	if err != nil {
		return wrap(err, "update job %s", j.ID)
	}
	fixed, err := jobArgs(j, fixedJobs)
	if err != nil {
		return wrap(err, "update job %s", j.ID)
	}
	static, err := jobArgs(j, fixedStatic)
	if err != nil {
		return wrap(err, "update job %s", j.ID)
	}
	fixed, static = append(fixed, j.ID), append(static, j.ID)
	add := attemptsUsage(c.Attempts)
	now := s.stamp()
	res, ref := resultRef(j, c.Attempts)
	args := append(state,
		add.PromptTokens, add.CompletionTokens, add.CostUSD, int64(len(c.Attempts)),
		now.UnixNano(), res, ref, j.TenantID, j.ID, j.Version)
	args = append(args, fixed[:len(fixed)-1]...)
	args = append(args, static[:len(static)-1]...)

	hist := historyOf(c, now)
	var (
		version  int64
		usage    askonce.Usage
		count    int
		appended []askonce.Event
	)
	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var (
			seq                         int64
			fixedChanged, staticChanged bool
		)
		err := tx.StmtContext(ctx, s.w.updateJob).QueryRowContext(ctx, args...).
			Scan(&version, &usage.PromptTokens, &usage.CompletionTokens, &usage.CostUSD, &count, &seq, &fixedChanged, &staticChanged)
		if errors.Is(err, sql.ErrNoRows) {
			return s.lostUpdate(ctx, tx, j)
		}
		if err != nil {
			return err
		}
		if fixedChanged {
			if _, err := tx.StmtContext(ctx, s.w.updateFixed).ExecContext(ctx, fixed...); err != nil {
				return err
			}
		}
		if staticChanged {
			if _, err := tx.StmtContext(ctx, s.w.updateStatic).ExecContext(ctx, static...); err != nil {
				return err
			}
		}
		appended, err = s.writeWith(ctx, tx, j, seq, c, hist, now)
		return err
	})
	if err != nil {
		return s.writeError(ctx, err, j, "update job %s", j.ID)
	}
	s.watchers.Wake(j.ID)
	j.Version = version
	j.UpdatedAt = now
	j.Usage = usage
	j.AttemptCount = count
	if c.Dispatch {
		j.Dispatch = askonce.DispatchQueued
	}
	wroteWith(c, appended, hist)
	return nil
}

// resultRef returns how j's result is stored, given the attempts its
// change writes: as the number of the (last) one whose raw output it is,
// or as its text.
func resultRef(j *askonce.Job, attempts []askonce.Attempt) (result, attempt any) {
	for i := len(attempts) - 1; i >= 0; i-- {
		if j.Result != "" && attempts[i].Raw == j.Result {
			return nil, attempts[i].N
		}
	}
	return textArg(j.Result), nil
}

// resultIndex is the place of the result among jobsColumns.
var resultIndex = slices.IndexFunc(jobsColumns, func(c *jobColumn) bool { return c.kind == resultColumn })

// attemptsUsage is the usage of attempts, summed.
func attemptsUsage(attempts []askonce.Attempt) askonce.Usage {
	var u askonce.Usage
	for _, a := range attempts {
		u = u.Add(a.Usage)
	}
	return u
}

// historyOf returns c.History as it will be stored (Change.StoredHistory),
// its time to the nanosecond in UTC.
func historyOf(c *askonce.Change, now time.Time) *askonce.HistoryEntry {
	h := c.StoredHistory(now)
	if h != nil {
		h.At = fromNanos(h.At.UnixNano())
	}
	return h
}

// writeWith writes, inside tx, what goes with the row of job j (whose
// log_seq is seq) written by c, for CreateJob and UpdateJob alike: the
// attempts, the events (returned as stored), the history entry hist, the
// answer link, the notification and the dispatch.
func (s *Store) writeWith(ctx context.Context, tx *sql.Tx, j *askonce.Job, seq int64, c *askonce.Change, hist *askonce.HistoryEntry, now time.Time) ([]askonce.Event, error) {
	if len(c.Attempts) > 0 {
		st := tx.StmtContext(ctx, s.w.insertAttempt)
		for i := range c.Attempts {
			args, err := attemptArgs(seq, &c.Attempts[i])
			if err != nil {
				return nil, err
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				return nil, wrap(err, "insert attempt %d", c.Attempts[i].N)
			}
		}
	}
	appended, err := s.appendEvents(ctx, tx, j.TenantID, j.ID, seq, c.Events, now)
	if err != nil {
		return nil, err
	}
	if hist != nil {
		if _, err := tx.StmtContext(ctx, s.w.upsertHistory).ExecContext(ctx,
			hist.TenantID, hist.SessionID, hist.QuestionHash, string(hist.Type),
			hist.Question, hist.Answer, hist.JobID, hist.At.UnixNano()); err != nil {
			return nil, wrap(err, "upsert history")
		}
	}
	if len(c.AnswerLink) > 0 {
		if _, err := tx.StmtContext(ctx, s.w.insertLink).ExecContext(ctx, c.AnswerLink, j.TenantID, j.ID, now.UnixNano()); err != nil {
			return nil, wrap(err, "record answer link")
		}
	}
	if c.Notify != "" && s.onNotify != nil {
		if err := s.onNotify(ctx, tx, j, c.Notify); err != nil {
			return nil, wrap(err, "queue %s notification", c.Notify)
		}
	}
	if c.Dispatch {
		if _, err := tx.StmtContext(ctx, s.w.insertDispatch).ExecContext(ctx, logID(seq, logDispatch, 0), now.UnixNano()); err != nil {
			if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
				return nil, errDispatched
			}
			return nil, wrap(err, "queue dispatch")
		}
		if s.onDispatch != nil {
			queued := *j
			queued.Dispatch = askonce.DispatchQueued
			if err := s.onDispatch(ctx, tx, &queued); err != nil {
				return nil, wrap(err, "queue dispatch")
			}
		}
	}
	return appended, nil
}

// wroteWith hands back to c, once its transaction committed, what the
// store assigned: the events' ids and times, the history entry's fields.
func wroteWith(c *askonce.Change, appended []askonce.Event, hist *askonce.HistoryEntry) {
	copy(c.Events, appended)
	if hist != nil {
		*c.History = *hist
	}
}

// writeError returns the error of a failed write of j: a second dispatch
// is ECONFLICT with the stored job, the store's own errors pass through,
// others get context.
func (s *Store) writeError(ctx context.Context, err error, j *askonce.Job, format string, args ...any) error {
	if errors.Is(err, errDispatched) {
		e := &askonce.Error{Code: askonce.ECONFLICT, Message: fmt.Sprintf("job %s was dispatched already", j.ID)}
		if cur, err := s.GetJob(ctx, j.TenantID, j.ID); err == nil {
			e.Job = cur
		}
		return e
	}
	return wrap(err, format, args...)
}

// JobByAnswerLink returns the job whose answer link has hash, of any
// tenant, or ENOTFOUND.
func (s *Store) JobByAnswerLink(ctx context.Context, hash []byte) (*askonce.Job, error) {
	j, err := scanJob(s.r.jobByLink.QueryRowContext(ctx, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, askonce.Errorf(askonce.ENOTFOUND, "no such answer link")
	}
	if err != nil {
		return nil, wrap(err, "find answer link")
	}
	return j, nil
}

// lostUpdate explains, inside the transaction, why the compare-and-set of
// j changed no row: the job is gone (ENOTFOUND), or its version moved
// (ECONFLICT with the stored job).
func (s *Store) lostUpdate(ctx context.Context, tx *sql.Tx, j *askonce.Job) error {
	cur, err := scanJob(tx.StmtContext(ctx, s.w.selectJob).QueryRowContext(ctx, j.TenantID, j.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", j.ID)
	}
	if err != nil {
		return wrap(err, "read current job")
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
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq int64
		err := tx.StmtContext(ctx, s.w.addUsage).QueryRowContext(ctx,
			a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD, tenant, jobID).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", jobID)
		}
		if err != nil {
			return err
		}
		args, err := attemptArgs(seq, &a)
		if err != nil {
			return err
		}
		if _, err := tx.StmtContext(ctx, s.w.insertAttempt).ExecContext(ctx, args...); err != nil {
			return wrap(err, "insert attempt %d", a.N)
		}
		if ev.Type == "" {
			return nil
		}
		_, err = s.appendEvents(ctx, tx, tenant, jobID, seq, []askonce.Event{ev}, now)
		return err
	})
	if err == nil {
		s.watchers.Wake(jobID)
	}
	return wrap(err, "add attempt to job %s", jobID)
}

// Attempts returns the job's attempts by number. ENOTFOUND if the tenant
// has no such job.
func (s *Store) Attempts(ctx context.Context, tenant, jobID string) ([]askonce.Attempt, error) {
	out, err := queryAll(ctx, s.r.attempts, scanAttempt, jobID, tenant)
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
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	// The ids job_log can hold (logID).
	after = min(max(after, 0), logMaxN)
	out, err := queryAll(ctx, s.r.events, scanEvent, jobID, tenant, after, limit)
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

// queryAll runs a prepared query and scans every row; never nil, so that
// an empty result is an empty JSON list.
func queryAll[T any](ctx context.Context, st *sql.Stmt, scan func(interface{ Scan(...any) error }) (T, error), args ...any) ([]T, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// mustExist returns ENOTFOUND unless the tenant has the job.
func (s *Store) mustExist(ctx context.Context, tenant, jobID string) error {
	var one int
	err := s.r.jobExists.QueryRowContext(ctx, tenant, jobID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
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
	h, err := scanHistory(s.r.lookupHistory.QueryRowContext(ctx, tenant, session, hash))
	if errors.Is(err, sql.ErrNoRows) {
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
	out, err := queryAll(ctx, s.r.history, scanHistory, tenant, session)
	if err != nil {
		return nil, wrap(err, "history of session %s", session)
	}
	return out, nil
}

// ListJobs returns one page of the tenant's jobs, newest first (by
// CreatedAt, then ID). The cursor is the position of the previous page's
// last job, so pages neither skip nor repeat jobs created meanwhile. A
// cursor this store did not make is EINVALID.
func (s *Store) ListJobs(ctx context.Context, tenant string, f askonce.JobFilter) (*askonce.JobPage, error) {
	limit := f.PageLimit()
	bits, args, err := listArgs(tenant, f)
	if err != nil {
		return nil, err
	}
	st, err := s.listStmt(ctx, bits)
	if err != nil {
		return nil, wrap(err, "list jobs")
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, wrap(err, "list jobs")
	}
	defer rows.Close()
	page := &askonce.JobPage{Jobs: make([]*askonce.Job, 0, min(limit, 64))}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, wrap(err, "list jobs")
		}
		page.Jobs = append(page.Jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(err, "list jobs")
	}
	if len(page.Jobs) > limit {
		page.Jobs = page.Jobs[:limit]
		last := page.Jobs[limit-1]
		page.NextCursor = encodeCursor(last.CreatedAt.UnixNano(), last.ID)
	}
	return page, nil
}

const (
	listByStatus = 1 << iota
	listBySession
	listAfter
	listActive // the status is one of jobs_active's (migration 00009)
	listEnded  // the status is one of jobs_ended's (migration 00012)
)

// statusIndex is listActive or listEnded for a status whose jobs a
// partial index holds, 0 for success (nearly every job's, read through
// jobs_by_tenant).
func statusIndex(st askonce.Status) int {
	switch st {
	case askonce.StatusPlanning, askonce.StatusPending:
		return listActive
	case askonce.StatusValidationError, askonce.StatusFailed, askonce.StatusCancelled, askonce.StatusExpired:
		return listEnded
	}
	return 0
}

// listArgs returns listQuery's filter bits for f and the query's
// arguments, the last the page's limit plus one.
func listArgs(tenant string, f askonce.JobFilter) (int, []any, error) {
	var bits int
	args := []any{tenant}
	if f.Status != "" {
		bits |= listByStatus | statusIndex(f.Status)
		args = append(args, string(f.Status))
	}
	if f.SessionID != "" {
		bits |= listBySession
		args = append(args, f.SessionID)
	}
	if f.Cursor != "" {
		at, id, ok := decodeCursor(f.Cursor)
		if !ok {
			return 0, nil, askonce.Errorf(askonce.EINVALID, "cursor %q is not a cursor of this list", f.Cursor)
		}
		bits |= listAfter
		args = append(args, at, id)
	}
	return bits, append(args, f.PageLimit()+1), nil
}

// listStmt returns the prepared ListJobs query for a set of filters,
// preparing it on first use.
func (s *Store) listStmt(ctx context.Context, bits int) (*sql.Stmt, error) {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	if st := s.listStmts[bits]; st != nil {
		return st, nil
	}
	st, err := s.reader.PrepareContext(ctx, listQuery(bits))
	if err != nil {
		return nil, err
	}
	s.listStmts[bits] = st
	return st, nil
}

// listQuery is the ListJobs query for a set of filters.
func listQuery(bits int) string {
	var q strings.Builder
	q.WriteString("SELECT " + jobColumns + jobFrom + " WHERE j.tenant_id = ?")
	if bits&listByStatus != 0 {
		q.WriteString(" AND j.status = ?")
	}
	if bits&listActive != 0 {
		// SQLite uses a partial index only when the query repeats its WHERE.
		q.WriteString(" AND j.status IN ('planning', 'pending')")
	}
	if bits&listEnded != 0 {
		q.WriteString(" AND j.status IN ('validation_error', 'failed', 'cancelled', 'expired')")
	}
	if bits&listBySession != 0 {
		q.WriteString(" AND j.session_id = ?")
	}
	if bits&listAfter != 0 {
		q.WriteString(" AND (j.created_at, j.id) < (?, ?)")
	}
	q.WriteString(" ORDER BY j.created_at DESC, j.id DESC LIMIT ?")
	return q.String()
}

// A cursor is the base64 of "<created_at unix ns>.<job id>".
func encodeCursor(createdAt int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(createdAt, 10) + "." + id))
}

func decodeCursor(c string) (int64, string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", false
	}
	at, id, ok := strings.Cut(string(b), ".")
	if !ok || id == "" {
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
	refs, err := s.refs(ctx, s.r.dueQuestions, now.UnixNano(), limit)
	if err != nil {
		return nil, wrap(err, "due questions")
	}
	return refs, nil
}

// LapsedLeases returns managed jobs of every tenant in planning whose lease
// ended at or before q.Now, or that q.Owner holds, earliest lease first.
func (s *Store) LapsedLeases(ctx context.Context, q askonce.LeaseQuery) ([]askonce.JobRef, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.r.lapsedLeases.QueryContext(ctx, q.Now.UnixNano(), q.Owner, limit)
	if err != nil {
		return nil, wrap(err, "lapsed leases")
	}
	refs, err := scanRefs(rows)
	if err != nil {
		return nil, wrap(err, "lapsed leases")
	}
	return refs, nil
}

// RenewLeases moves r.Owner's leases on r.Jobs to r.Until, in one
// transaction.
func (s *Store) RenewLeases(ctx context.Context, r askonce.LeaseRenewal) (int, error) {
	if len(r.Jobs) == 0 {
		return 0, nil
	}
	n := 0
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n = 0
		st := tx.StmtContext(ctx, s.w.renewPlanning)
		for _, j := range r.Jobs {
			res, err := st.ExecContext(ctx, leaseArg(r.Until), j.TenantID, j.ID, r.Owner)
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += int(k)
		}
		return nil
	})
	if err != nil {
		return 0, wrap(err, "renew planning leases")
	}
	return n, nil
}

// Lead takes or keeps the leadership l.Name for l.Owner: see
// askonce.Store.Lead.
func (s *Store) Lead(ctx context.Context, l askonce.Leadership) (bool, error) {
	led := false
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var owner string
		err := tx.StmtContext(ctx, s.w.lead).QueryRowContext(ctx, l.Name, l.Owner, l.Now.UnixNano(), l.Until.UnixNano()).Scan(&owner)
		if errors.Is(err, sql.ErrNoRows) {
			led = false
			return nil
		}
		led = err == nil
		return err
	})
	if err != nil {
		return false, wrap(err, "lead %s", l.Name)
	}
	return led, nil
}

func (s *Store) refs(ctx context.Context, st *sql.Stmt, at int64, limit int) ([]askonce.JobRef, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := st.QueryContext(ctx, at, limit)
	if err != nil {
		return nil, err
	}
	return scanRefs(rows)
}

// scanRefs reads (tenant_id, id) rows and closes them.
func scanRefs(rows *sql.Rows) ([]askonce.JobRef, error) {
	defer rows.Close()
	out := []askonce.JobRef{}
	for rows.Next() {
		var r askonce.JobRef
		if err := rows.Scan(&r.TenantID, &r.ID); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// appendEvents inserts events for the job (whose log_seq is seq) and
// returns them as stored: with the job's tenant and id, At (now when
// zero) and the IDs after the job's last event's. The caller copies them
// back only once the transaction committed.
func (s *Store) appendEvents(ctx context.Context, tx *sql.Tx, tenant, jobID string, seq int64, events []askonce.Event, now time.Time) ([]askonce.Event, error) {
	if len(events) == 0 {
		return nil, nil
	}
	first := logID(seq, logEvent, 0)
	var lastID int64
	err := tx.StmtContext(ctx, s.w.lastEventID).QueryRowContext(ctx, first, logID(seq, logEvent+1, 0)).Scan(&lastID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		lastID = first
	case err != nil:
		return nil, wrap(err, "read the last event id")
	}
	last := lastID - first
	if last+int64(len(events)) > logMaxN {
		return nil, fmt.Errorf("job %s has no event ids left", jobID)
	}
	st := tx.StmtContext(ctx, s.w.insertEvent)
	out := slices.Clone(events)
	for i := range out {
		e := &out[i]
		e.TenantID, e.JobID = tenant, jobID
		if e.At.IsZero() {
			e.At = now
		} else {
			e.At = fromNanos(e.At.UnixNano())
		}
		e.ID = last + int64(i) + 1
		if _, err := st.ExecContext(ctx, logID(seq, logEvent, e.ID), string(e.Type), e.At.UnixNano(), rawArg(e.Data)); err != nil {
			return nil, wrap(err, "append %s event", e.Type)
		}
	}
	return out, nil
}

// isConstraint reports whether err is a SQLite constraint violation with
// one of the extended result codes.
func isConstraint(err error, codes ...int) bool {
	var e *msqlite.Error
	return errors.As(err, &e) && slices.Contains(codes, e.Code())
}

// wrap adds context to an unexpected error and passes askonce's own errors
// through unchanged, so that their messages stay fit for callers.
func wrap(err error, format string, args ...any) error {
	var e *askonce.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	if unreachable(err) {
		return askonce.Unavailable(fmt.Errorf(format+": %w", append(args, err)...))
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
