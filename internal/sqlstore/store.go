package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/askonce/askonce"
)

// Conn runs a store's statements on its driver: on its pool, or inside a
// write transaction. A row that is not there is sql.ErrNoRows (pgx's
// ErrNoRows is one).
type Conn interface {
	QueryRow(ctx context.Context, q *Stmt, args ...any) Scanner
	// Query calls each for every row q returns.
	Query(ctx context.Context, q *Stmt, each func(row Scanner) error, args ...any) error
	// Exec returns how many rows q changed.
	Exec(ctx context.Context, q *Stmt, args ...any) (int64, error)
}

// Store is what both stores do alike: the reads of askonce.Store, the
// writes that are one statement or two in a transaction, and those of
// askonce.IdempotencyStore but the claim. A store embeds it (New), made
// with its driver's Conn and its dialect's differences.
type Store struct{ c Config }

// New returns the Store c configures.
func New(c Config) Store { return Store{c} }

// Config is a store's driver and dialect, for New.
type Config struct {
	// Read runs the reads.
	Read Conn
	// Write runs fn in one write transaction and commits it.
	Write func(ctx context.Context, fn func(ctx context.Context, tx Conn) error) error
	// Own is the store's statements in its dialect.
	Own Own
	// Table is the store's job columns (JobTable).
	Table    []Column
	Encoding Encoding
	// NoLimit is the LIMIT of every row: SQLite's -1, PostgreSQL's NULL.
	NoLimit any
	// Now is the store's clock.
	Now func() time.Time
	// Wrap adds context to an unexpected error (the store's Wrap).
	Wrap func(err error, format string, args ...any) error
	// ScanAttempt reads a row of Attempts.
	ScanAttempt func(row Scanner) (askonce.Attempt, error)
	// EventsAfter is the after of an Events query (nil: as given).
	EventsAfter func(after int64) int64
	// Round is a time in the precision the store keeps.
	Round func(t time.Time) time.Time
	// TakeOver is the takeover of ClaimIdempotencyKey, in tx: it makes
	// rec.Owner the owner of the in-flight claim of (rec.TenantID,
	// rec.Key) with rec.Fingerprint if its owner's lease lapsed before
	// now (the store's Encoding of the time), and returns the row of its
	// job_id, base_version and created_at; sql.ErrNoRows when it took
	// nothing over.
	TakeOver func(ctx context.Context, tx Conn, rec *askonce.IdempotencyRecord, now any) Scanner
}

// ErrRow is a row whose Scan fails with Err.
type ErrRow struct{ Err error }

func (r ErrRow) Scan(...any) error { return r.Err }

func (s *Store) limit(n int) any {
	if n <= 0 {
		return s.c.NoLimit
	}
	return n
}

// queryAll reads every row of q; never nil, so that an empty result is
// an empty JSON list.
func queryAll[T any](ctx context.Context, c Conn, q *Stmt, scan func(Scanner) (T, error), args ...any) ([]T, error) {
	out := []T{}
	err := c.Query(ctx, q, func(row Scanner) error {
		v, err := scan(row)
		if err == nil {
			out = append(out, v)
		}
		return err
	}, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetJob returns the tenant's job, or ENOTFOUND.
func (s *Store) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	j, err := ScanJob(s.c.Table, s.c.Read.QueryRow(ctx, s.c.Own.GetJob, tenant, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound(id)
	}
	if err != nil {
		return nil, s.c.Wrap(err, "get job %s", id)
	}
	return j, nil
}

// JobByAnswerLink returns the job whose answer link has hash, of any
// tenant, or ENOTFOUND.
func (s *Store) JobByAnswerLink(ctx context.Context, hash []byte) (*askonce.Job, error) {
	j, err := ScanJob(s.c.Table, s.c.Read.QueryRow(ctx, s.c.Own.JobByLink, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, askonce.Errorf(askonce.ENOTFOUND, "no such answer link")
	}
	if err != nil {
		return nil, s.c.Wrap(err, "find answer link")
	}
	return j, nil
}

// mustExist returns ENOTFOUND unless the tenant has the job.
func (s *Store) mustExist(ctx context.Context, tenant, jobID string) error {
	var one int
	err := s.c.Read.QueryRow(ctx, s.c.Own.JobExists, tenant, jobID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return NotFound(jobID)
	}
	return s.c.Wrap(err, "find job %s", jobID)
}

// ofJob returns the rows of a job's records, or ENOTFOUND if the tenant
// has no such job. Records are written with their job, so rows imply
// the job; only an empty result needs to tell "no job" from "no
// records".
func ofJob[T any](ctx context.Context, s *Store, tenant, jobID, what string, q *Stmt, scan func(Scanner) (T, error), args ...any) ([]T, error) {
	out, err := queryAll(ctx, s.c.Read, q, scan, args...)
	if err != nil {
		return nil, s.c.Wrap(err, "%s of job %s", what, jobID)
	}
	if len(out) == 0 {
		if err := s.mustExist(ctx, tenant, jobID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Attempts returns the job's attempts by number. ENOTFOUND if the tenant
// has no such job.
func (s *Store) Attempts(ctx context.Context, tenant, jobID string) ([]askonce.Attempt, error) {
	return ofJob(ctx, s, tenant, jobID, "attempts", s.c.Own.Attempts, s.c.ScanAttempt, jobID, tenant)
}

// Events returns the job's events that q selects, by ID
// (askonce.Store.Events). ENOTFOUND if the tenant has no such job.
func (s *Store) Events(ctx context.Context, q askonce.EventQuery) ([]askonce.Event, error) {
	after := q.After
	if s.c.EventsAfter != nil {
		after = s.c.EventsAfter(after)
	}
	return ofJob(ctx, s, q.TenantID, q.JobID, "events", s.c.Own.Events, ScanEvent, q.JobID, q.TenantID, after, s.limit(q.Limit))
}

// LookupHistory returns the answer to q.QuestionHash nearest to q's
// session (askonce.Store.LookupHistory), or ENOTFOUND. A query of the
// session alone reads history only.
func (s *Store) LookupHistory(ctx context.Context, q askonce.HistoryQuery) (*askonce.HistoryEntry, error) {
	r := new(historyRow) // its h is what is returned: one allocation
	var err error
	if q.Project == "" && !q.Tenant {
		err = r.scanSession(s.c.Read.QueryRow(ctx, lookupHistory, q.TenantID, q.SessionID, q.QuestionHash), q)
	} else {
		err = r.scan(s.c.Read.QueryRow(ctx, lookupMemory, q.TenantID, q.SessionID, q.QuestionHash, q.Project, q.Tenant, s.c.Encoding.Time(q.Now)))
	}
	if errors.Is(err, sql.ErrNoRows) {
		// The repeat guard meets this on every new question: the
		// message is joined, not formatted (Errorf's "session %s has no
		// answer to question %s", for less work).
		return nil, &askonce.Error{Code: askonce.ENOTFOUND, Message: "session " + q.SessionID + " has no answer to question " + q.QuestionHash}
	}
	if err != nil {
		return nil, s.c.Wrap(err, "look up history of session %s", q.SessionID)
	}
	return &r.h, nil
}

// Memory returns the answers remembered in f's project or tenant that
// have not expired at f.Now, newest first.
func (s *Store) Memory(ctx context.Context, f askonce.MemoryFilter) ([]askonce.HistoryEntry, error) {
	out, err := queryAll(ctx, s.c.Read, memory, ScanHistory, f.TenantID, string(f.Scope), f.Project, s.c.Encoding.Time(f.Now))
	if err != nil {
		return nil, s.c.Wrap(err, "%s memory", f.Scope)
	}
	return out, nil
}

// History returns the session's answered questions, oldest (last
// answered) first.
func (s *Store) History(ctx context.Context, tenant, session string) ([]askonce.HistoryEntry, error) {
	out, err := queryAll(ctx, s.c.Read, history, ScanHistory, tenant, session)
	if err != nil {
		return nil, s.c.Wrap(err, "history of session %s", session)
	}
	return out, nil
}

// Forget deletes one remembered answer: a session's from history, a
// project's or the tenant's from memory.
func (s *Store) Forget(ctx context.Context, k askonce.MemoryKey) error {
	q, args := forgetShared, []any{k.TenantID, string(k.Scope), k.ScopeKey(), k.QuestionHash}
	if k.Scope == askonce.MemorySession {
		q, args = forgetSession, []any{k.TenantID, k.SessionID, k.QuestionHash}
	}
	var n int64
	err := s.c.Write(ctx, func(ctx context.Context, tx Conn) (err error) {
		n, err = tx.Exec(ctx, q, args...)
		return err
	})
	if err != nil {
		return s.c.Wrap(err, "forget %s answer %s", k.Scope, k.QuestionHash)
	}
	if n == 0 {
		return askonce.Errorf(askonce.ENOTFOUND, "no %s answer to question %s is remembered", k.Scope, k.QuestionHash)
	}
	return nil
}

// ListJobs returns one page of the tenant's jobs, newest first (by
// CreatedAt, then ID): see ListQuery.
func (s *Store) ListJobs(ctx context.Context, tenant string, f askonce.JobFilter) (*askonce.JobPage, error) {
	bits, args, err := ListArgs(s.c.Encoding, tenant, f)
	if err != nil {
		return nil, err
	}
	jobs, err := queryAll(ctx, s.c.Read, s.c.Own.List[bits], func(row Scanner) (*askonce.Job, error) { return ScanJob(s.c.Table, row) }, args...)
	if err != nil {
		return nil, s.c.Wrap(err, "list jobs")
	}
	return Page(jobs, f.PageLimit()), nil
}

// DueQuestions returns pending jobs of every tenant whose question expired
// at or before now, earliest deadline first. A limit <= 0 returns them all.
func (s *Store) DueQuestions(ctx context.Context, now time.Time, limit int) ([]askonce.JobRef, error) {
	refs, err := queryAll(ctx, s.c.Read, DueQuestions, ScanRef, s.c.Encoding.Time(now), s.limit(limit))
	if err != nil {
		return nil, s.c.Wrap(err, "due questions")
	}
	return refs, nil
}

// LapsedLeases returns managed jobs of every tenant in planning whose lease
// ended at or before q.Now, or that q.Owner holds, earliest lease first.
func (s *Store) LapsedLeases(ctx context.Context, q askonce.LeaseQuery) ([]askonce.JobRef, error) {
	refs, err := queryAll(ctx, s.c.Read, s.c.Own.LapsedLeases, ScanRef, s.c.Encoding.Time(q.Now), q.Owner, s.limit(q.Limit))
	if err != nil {
		return nil, s.c.Wrap(err, "lapsed leases")
	}
	return refs, nil
}

// Lead takes or keeps the leadership l.Name for l.Owner: see
// askonce.Store.Lead. Of two racing inserts of a new name, the second
// waits for the first and then finds a live lead of another owner.
func (s *Store) Lead(ctx context.Context, l askonce.Leadership) (bool, error) {
	led := false
	err := s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		var owner string
		err := tx.QueryRow(ctx, lead, l.Name, l.Owner, s.c.Encoding.Time(l.Now), s.c.Encoding.Time(l.Until)).Scan(&owner)
		if errors.Is(err, sql.ErrNoRows) {
			led = false
			return nil
		}
		led = err == nil
		return err
	})
	if err != nil {
		return false, s.c.Wrap(err, "lead %s", l.Name)
	}
	return led, nil
}

// Message returns the job's message on channel, or ENOTFOUND.
func (s *Store) Message(ctx context.Context, tenant, jobID, channel string) (askonce.Message, error) {
	m := askonce.Message{TenantID: tenant, JobID: jobID, Channel: channel}
	err := s.c.Read.QueryRow(ctx, message, tenant, jobID, channel).Scan(&m.Ref)
	if errors.Is(err, sql.ErrNoRows) {
		return m, askonce.Errorf(askonce.ENOTFOUND, "job %s has no %s message", jobID, channel)
	}
	if err != nil {
		return m, fmt.Errorf("read %s message of job %s: %w", channel, jobID, err)
	}
	return m, nil
}

// PutMessage records m unless the job has a message on m.Channel
// already, and returns the one stored (see askonce.MessageStore). Of
// racing puts, the one that lost reads the winner's row in a statement
// of its own, after its insert waited for the winner's commit.
func (s *Store) PutMessage(ctx context.Context, m askonce.Message) (askonce.Message, error) {
	out := m
	err := s.c.Write(ctx, func(ctx context.Context, tx Conn) error {
		if _, err := tx.Exec(ctx, putMessage, m.TenantID, m.JobID, m.Channel, m.Ref); err != nil {
			return err
		}
		return tx.QueryRow(ctx, message, m.TenantID, m.JobID, m.Channel).Scan(&out.Ref)
	})
	if err != nil {
		return askonce.Message{}, fmt.Errorf("put %s message of job %s: %w", m.Channel, m.JobID, err)
	}
	return out, nil
}
