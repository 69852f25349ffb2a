package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
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
	now := s.stamp()
	// The row as stored: the store's columns start over.
	ins, err := sqlstore.Inserted(c, now, toNanos)
	if err != nil {
		return err
	}
	job := c.Job
	args, err := sqlstore.Args(ins, jobsColumns)
	if err != nil {
		return wrap(err, "create job %s", job.ID)
	}
	static, err := sqlstore.Args(ins, staticColumns)
	if err != nil {
		return wrap(err, "create job %s", job.ID)
	}
	var ref any
	args[resultIndex], ref = resultRef(ins, c.Attempts)
	hist := sqlstore.HistoryOf(c, now, toNanos)

	err = s.writeIn(ctx, s.hooked(c), func(ctx context.Context, tx wtx) error {
		var seq int64
		if err := tx.queryRow(ctx, s.w.insertJob, append(args, ref)...).Scan(&seq); err != nil {
			if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
				return askonce.Errorf(askonce.ECONFLICT, "job %s already exists", job.ID)
			}
			return err
		}
		// The job's kind 0 record goes with its attempts and events; a
		// new job has no events yet.
		return s.writeWith(ctx, tx, ins, seq, 0, static, c, hist, now)
	})
	if err != nil {
		return s.writeError(ctx, err, job, "create job %s", job.ID)
	}
	s.watchers.Wake(job.ID)
	storedEvents(c.Events, job.TenantID, job.ID, 0, now)
	sqlstore.Created(c, ins, nil, hist)
	return nil
}

// hooked reports whether writing c calls a hook (Options.OnDispatch,
// Options.OnNotify), which takes database/sql's transaction: then c is
// written in one (writeIn).
func (s *Store) hooked(c *askonce.Change) bool {
	return (c.Notify != "" && s.onNotify != nil) || (c.Dispatch && s.onDispatch != nil)
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
	w, err := sqlstore.Written(c)
	if err != nil {
		return err
	}
	j := c.Job
	// updateJobSQL's values, in one slice: the state columns, the sums,
	// the WHERE's, then the fixed columns of jobs and of job_log, which
	// updateFixedSQL and updateStaticSQL take too, with the job id.
	args := make([]any, 0, len(stateColumns)+10+len(fixedJobs)+len(fixedStatic))
	args, err = sqlstore.AppendArgs(args, w, stateColumns)
	if err != nil {
		return wrap(err, "update job %s", j.ID)
	}
	add := sqlstore.AttemptsUsage(c.Attempts)
	now := s.stamp()
	res, ref := resultRef(j, c.Attempts)
	id := any(j.ID)
	args = append(args,
		add.PromptTokens, add.CompletionTokens, add.CostUSD, int64(len(c.Attempts)),
		now.UnixNano(), res, ref, j.TenantID, id, j.Version)
	fixedAt := len(args)
	if args, err = sqlstore.AppendArgs(args, j, fixedJobs); err != nil {
		return wrap(err, "update job %s", j.ID)
	}
	staticAt := len(args)
	if args, err = sqlstore.AppendArgs(args, j, fixedStatic); err != nil {
		return wrap(err, "update job %s", j.ID)
	}
	fixed, static := args[fixedAt:staticAt:staticAt], args[staticAt:len(args):len(args)]

	hist := sqlstore.HistoryOf(c, now, toNanos)
	var (
		usage askonce.Usage
		count int
		last  int64 // the id of the job's last event before c's
	)
	err = s.writeIn(ctx, s.hooked(c), func(ctx context.Context, tx wtx) error {
		var (
			seq, changed int64
			lastEvent    sql.NullInt64
		)
		err := tx.queryRow(ctx, s.w.updateJob, args...).
			Scan(&usage.PromptTokens, &usage.CompletionTokens, &usage.CostUSD, &count, &seq, &lastEvent, &changed)
		if errors.Is(err, sql.ErrNoRows) {
			return s.lostUpdate(ctx, tx, j)
		}
		if err != nil {
			return err
		}
		fixedChanged, staticChanged := changed&1 != 0, changed&2 != 0
		if fixedChanged {
			if _, err := tx.exec(ctx, s.w.updateFixed, append(fixed, id)...); err != nil {
				return err
			}
		}
		if staticChanged {
			if _, err := tx.exec(ctx, s.w.updateStatic, append(static, id)...); err != nil {
				return err
			}
		}
		last = 0
		if lastEvent.Valid {
			last = lastEvent.Int64 - logID(seq, logEvent, 0)
		}
		return s.writeWith(ctx, tx, j, seq, last, nil, c, hist, now)
	})
	if err != nil {
		return s.writeError(ctx, err, j, "update job %s", j.ID)
	}
	s.watchers.Wake(j.ID)
	storedEvents(c.Events, j.TenantID, j.ID, last, now)
	sqlstore.Updated(c, j.Version+1, now, usage, count, nil, hist)
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
	return sqlstore.Text(j.Result), nil
}

// writeWith writes, inside tx, what goes with the row of job j (whose
// log_seq is seq, and whose last event has id last) written by c, for
// CreateJob and UpdateJob alike: its job_log records in one statement
// (a new job's kind 0 record, whose staticColumns values static holds,
// the attempts, the events, whose ids and times the caller sets once
// the write committed (storedEvents), and the dispatch), the
// history entry hist, the answer link, the notification and the
// dispatch's hook.
func (s *Store) writeWith(ctx context.Context, tx wtx, j *askonce.Job, seq, last int64, static []any, c *askonce.Change, hist *askonce.HistoryEntry, now time.Time) error {
	// The values go into the writer's own slice: writes run one at a
	// time (Store.writing).
	rows := logRows{args: s.logArgs[:0]}
	defer func() { s.logArgs = rows.clear() }()
	if static != nil {
		staticRow(&rows, seq, static)
	}
	for i := range c.Attempts {
		if err := attemptRow(&rows, seq, &c.Attempts[i]); err != nil {
			return err
		}
	}
	if err := eventRows(&rows, j.ID, seq, last, c.Events, now); err != nil {
		return err
	}
	// The dispatch is the job's kind 3 record, the last of them: its
	// rowid refuses a second dispatch of the job. In the same statement
	// as the others, a statement fewer a change that dispatches.
	dispatch := -1 // its place among rows
	if c.Dispatch {
		dispatch = rows.n
		rows.add(logID(seq, logDispatch, 0), now.UnixNano(), "queued", nil, nil)
	}
	if failed, err := s.insertLog(ctx, tx, &rows); err != nil {
		if dispatch >= 0 && isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) && failed == dispatch {
			return errDispatched
		}
		return wrap(err, "append the job_log records of job %s", j.ID)
	}
	if err := s.upsertHistory(ctx, tx, hist); err != nil {
		return err
	}
	for _, h := range sqlstore.FieldHistoryOf(c, toNanos) {
		if err := s.upsertHistory(ctx, tx, &h); err != nil {
			return err
		}
	}
	if r := c.Recalled; r != nil && r.Scope != askonce.MemorySession {
		if _, err := tx.exec(ctx, s.writeShared.get(sqlstore.UseMemory), j.TenantID, string(r.Scope), r.Project, r.QuestionHash); err != nil {
			return fmt.Errorf("count the use of a remembered answer: %w", err)
		}
	}
	if len(c.AnswerLink) > 0 {
		if _, err := tx.exec(ctx, s.writeShared.get(sqlstore.InsertLink), c.AnswerLink, j.TenantID, j.ID, now.UnixNano()); err != nil {
			return wrap(err, "record answer link")
		}
	}
	if c.Notify != "" && s.onNotify != nil {
		htx, err := hookTx(tx)
		if err != nil {
			return err
		}
		if err := s.onNotify(ctx, htx, j, c.Notify); err != nil {
			return wrap(err, "queue %s notification", c.Notify)
		}
	}
	if c.Dispatch && s.onDispatch != nil {
		htx, err := hookTx(tx)
		if err != nil {
			return err
		}
		queued := *j
		queued.Dispatch = askonce.DispatchQueued
		if err := s.onDispatch(ctx, htx, &queued); err != nil {
			return wrap(err, "queue dispatch")
		}
	}
	return nil
}

// writeError returns the error of a failed write of j: a second dispatch
// is ECONFLICT with the stored job, the store's own errors pass through,
// others get context.
func (s *Store) writeError(ctx context.Context, err error, j *askonce.Job, format string, args ...any) error {
	if errors.Is(err, errDispatched) {
		cur, _ := s.GetJob(ctx, j.TenantID, j.ID)
		return sqlstore.Dispatched(j.ID, cur)
	}
	return wrap(err, format, args...)
}

// lostUpdate explains, inside the transaction, why the compare-and-set of
// j changed no row: the job is gone (ENOTFOUND), or its version moved
// (ECONFLICT with the stored job).
func (s *Store) lostUpdate(ctx context.Context, tx wtx, j *askonce.Job) error {
	cur, err := scanJob(tx.queryRow(ctx, s.w.selectJob, j.TenantID, j.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return sqlstore.NotFound(j.ID)
	}
	if err != nil {
		return wrap(err, "read current job")
	}
	return sqlstore.Conflict(j, cur)
}

// AddAttempt appends a, adds its usage to the job's sums and counts it,
// and appends ev (unless ev.Type is empty), in one transaction. The job's
// Version and UpdatedAt do not change. ENOTFOUND if the tenant has no such
// job.
func (s *Store) AddAttempt(ctx context.Context, tenant, jobID string, a askonce.Attempt, ev askonce.Event) error {
	now := s.stamp()
	err := s.write(ctx, func(ctx context.Context, tx wtx) error {
		var seq int64
		err := tx.queryRow(ctx, s.w.addUsage,
			a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD, tenant, jobID).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return sqlstore.NotFound(jobID)
		}
		if err != nil {
			return err
		}
		var rows logRows
		if err := attemptRow(&rows, seq, &a); err != nil {
			return err
		}
		if _, err := s.insertLog(ctx, tx, &rows); err != nil {
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

// listQuery is the ListJobs query for a set of filters.
func listQuery(bits int) string {
	return sqlstore.ListQuery(sqlstore.Question, "SELECT "+jobColumns+jobFrom, bits)
}

// RenewLeases moves r.Owner's leases on r.Jobs to r.Until, in one
// transaction.
func (s *Store) RenewLeases(ctx context.Context, r askonce.LeaseRenewal) (int, error) {
	if len(r.Jobs) == 0 {
		return 0, nil
	}
	n := 0
	err := s.write(ctx, func(ctx context.Context, tx wtx) error {
		n = 0
		for _, j := range r.Jobs {
			k, err := tx.exec(ctx, s.w.renewPlanning, leaseArg(r.Until), j.TenantID, j.ID, r.Owner)
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

// appendEvents inserts events for the job (whose log_seq is seq) and
// returns them as stored: with the job's tenant and id, At (now when
// zero) and the IDs after the job's last event's, which it reads. The
// caller copies them back only once the transaction committed.
func (s *Store) appendEvents(ctx context.Context, tx wtx, tenant, jobID string, seq int64, events []askonce.Event, now time.Time) ([]askonce.Event, error) {
	if len(events) == 0 {
		return nil, nil
	}
	first := logID(seq, logEvent, 0)
	var lastID int64
	err := tx.queryRow(ctx, s.w.lastEventID, first, logID(seq, logEvent+1, 0)).Scan(&lastID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		lastID = first
	case err != nil:
		return nil, wrap(err, "read the last event id")
	}
	var rows logRows
	if err := eventRows(&rows, jobID, seq, lastID-first, events, now); err != nil {
		return nil, err
	}
	if _, err := s.insertLog(ctx, tx, &rows); err != nil {
		return nil, wrap(err, "append events")
	}
	out := slices.Clone(events)
	storedEvents(out, tenant, jobID, lastID-first, now)
	return out, nil
}

// eventRows adds to rows the job_log records of events, of the job
// (jobID) whose log_seq is seq and whose last event has id last, as
// storedEvents stores them.
func eventRows(rows *logRows, jobID string, seq, last int64, events []askonce.Event, now time.Time) error {
	if len(events) == 0 {
		return nil
	}
	if last+int64(len(events)) > logMaxN {
		return fmt.Errorf("job %s has no event ids left", jobID)
	}
	for i := range events {
		e := &events[i]
		at := now
		if !e.At.IsZero() {
			at = e.At
		}
		rows.add(logID(seq, logEvent, last+int64(i)+1), at.UnixNano(), string(e.Type), rawArg(e.Data), nil)
	}
	return nil
}

// storedEvents sets events, once written (eventRows), as stored: the
// job's tenant and id, At (now when zero) in the precision stored and
// the ids after last, the job's last event's.
func storedEvents(events []askonce.Event, tenant, jobID string, last int64, now time.Time) {
	for i := range events {
		e := &events[i]
		e.TenantID, e.JobID = tenant, jobID
		if e.At.IsZero() {
			e.At = now
		} else {
			e.At = fromNanos(e.At.UnixNano())
		}
		e.ID = last + int64(i) + 1
	}
}

// logRows are the values of job_log records that one write inserts
// together: logWidth values a record, but a job's kind 0 record
// (full), the first, which has every column (logColumns).
type logRows struct {
	args []any
	n    int  // records
	full bool // the first record is a kind 0 record
}

// add adds a record of logWidth values.
func (r *logRows) add(v ...any) {
	r.args = append(r.args, v...)
	r.n++
}

// clear lets go of the values and returns the emptied slice, for
// reuse.
func (r *logRows) clear() []any {
	clear(r.args)
	return r.args[:0]
}

// staticPos is where each of staticColumns goes in a job_log record.
var staticPos = func() []int {
	pos := make([]int, len(staticColumns))
	for i, c := range staticColumns {
		pos[i] = slices.Index(logColumns, c.Name)
		if pos[i] < 1 {
			panic("sqlite: static column " + c.Name + " is not a column of job_log")
		}
	}
	return pos
}()

// staticRow adds the kind 0 record of the job whose log_seq is seq to
// rows, as their first: static holds the values of staticColumns.
func staticRow(rows *logRows, seq int64, static []any) {
	if rows.n != 0 {
		panic("sqlite: a kind 0 record after others")
	}
	rows.args = append(rows.args, make([]any, len(logColumns))...)
	rows.args[0] = logID(seq, logJob, 0)
	for i, v := range static {
		rows.args[staticPos[i]] = v
	}
	rows.n, rows.full = 1, true
}

// attemptRow adds attempt a of the job whose log_seq is seq to rows.
func attemptRow(rows *logRows, seq int64, a *askonce.Attempt) error {
	args, err := appendAttempt(rows.args, seq, a)
	if err != nil {
		return err
	}
	rows.args = args
	rows.n++
	return nil
}

// insertLog inserts rows, maxLogRows records a statement. When one
// fails, it returns the place among rows of the record it failed on, or
// -1 when it cannot tell.
func (s *Store) insertLog(ctx context.Context, tx wtx, rows *logRows) (int, error) {
	args := rows.args
	for done := 0; done < rows.n; {
		n := min(rows.n-done, maxLogRows)
		st, k := s.w.insertLog[n-1], n*logWidth
		if done == 0 && rows.full {
			st, k = s.w.insertLogFull[n-1], k+len(logColumns)-logWidth
		}
		if _, err := tx.exec(ctx, st, args[:k]...); err != nil {
			// The statement is OR FAIL: the records before the one it
			// failed on stay, until the write is rolled back, and
			// changes() counts them.
			var wrote int
			if tx.queryRow(ctx, s.w.changes).Scan(&wrote) != nil {
				return -1, err
			}
			return done + wrote, err
		}
		done += n
		args = args[k:]
	}
	return -1, nil
}

// isConstraint reports whether err is a SQLite constraint violation with
// one of the extended result codes.
func isConstraint(err error, codes ...int) bool {
	var e *msqlite.Error
	return errors.As(err, &e) && slices.Contains(codes, e.Code())
}

// wrap adds context to an unexpected error (sqlstore.Wrap).
func wrap(err error, format string, args ...any) error {
	return sqlstore.Wrap(err, unreachable, format, args...)
}

// upsertHistory keeps hist (if any) in its session's history and, for a
// project or tenant entry, in that memory.
func (s *Store) upsertHistory(ctx context.Context, tx wtx, hist *askonce.HistoryEntry) error {
	if hist == nil {
		return nil
	}
	if _, err := tx.exec(ctx, s.writeShared.get(sqlstore.UpsertHistory),
		hist.TenantID, hist.SessionID, hist.QuestionHash, string(hist.Type),
		hist.Question, hist.Answer, hist.JobID, hist.At.UnixNano()); err != nil {
		return wrap(err, "upsert history")
	}
	if hist.Scope == askonce.MemoryProject || hist.Scope == askonce.MemoryTenant {
		if _, err := tx.exec(ctx, s.writeShared.get(sqlstore.UpsertMemory),
			hist.TenantID, string(hist.Scope), hist.Project, hist.QuestionHash, string(hist.Type),
			hist.Question, hist.Answer, hist.JobID, hist.SessionID, hist.At.UnixNano(), timePtrArg(hist.ExpiresAt)); err != nil {
			return fmt.Errorf("remember the answer in %s memory: %w", hist.Scope, err)
		}
	}
	return nil
}
