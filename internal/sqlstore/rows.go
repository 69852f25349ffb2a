package sqlstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/askonce/askonce"
)

// ScanHistory reads the HistoryColumns of one row.
func ScanHistory(row Scanner) (askonce.HistoryEntry, error) {
	r := new(historyRow)
	err := r.scan(row)
	return r.h, err
}

// historyRow is one row of HistoryColumns as it is scanned: every
// destination in one variable, which moves to the heap once (Scan takes
// each by an interface), rather than each in one of its own.
type historyRow struct {
	h             askonce.HistoryEntry
	typ, sc       string
	at, expiresAt Time
}

// scan reads row into r.h.
func (r *historyRow) scan(row Scanner) error {
	h := &r.h
	err := row.Scan(&h.TenantID, &h.SessionID, &r.sc, &h.Project, &h.QuestionHash, &r.typ, &h.Question, &h.Answer, &h.JobID, &r.at, &r.expiresAt, &h.Uses)
	h.Scope = askonce.MemoryScope(r.sc)
	h.Type = askonce.QuestionType(r.typ)
	h.At = time.Time(r.at)
	h.ExpiresAt = r.expiresAt.Ptr()
	return err
}

// scanSession reads into r.h a row of lookupHistory, the answer to q
// in q's session.
func (r *historyRow) scanSession(row Scanner, q askonce.HistoryQuery) error {
	h := &r.h
	err := row.Scan(&r.typ, &h.Question, &h.Answer, &h.JobID, &r.at)
	h.TenantID, h.SessionID, h.QuestionHash, h.Scope = q.TenantID, q.SessionID, q.QuestionHash, askonce.MemorySession
	h.Type = askonce.QuestionType(r.typ)
	h.At = time.Time(r.at)
	return err
}

// ScanEvent reads (id, tenant_id, job_id, type, at, data) of one row.
func ScanEvent(row Scanner) (askonce.Event, error) {
	var (
		e    askonce.Event
		typ  string
		at   Time
		data []byte
	)
	err := row.Scan(&e.ID, &e.TenantID, &e.JobID, &typ, &at, &data)
	e.Type = askonce.EventType(typ)
	e.At = time.Time(at)
	if len(data) > 0 {
		e.Data = json.RawMessage(data)
	}
	return e, err
}

// ScanRef reads (tenant_id, id) of one row.
func ScanRef(row Scanner) (askonce.JobRef, error) {
	var r askonce.JobRef
	err := row.Scan(&r.TenantID, &r.ID)
	return r, err
}

// HistoryOf returns c.History as a store keeps it
// (askonce.Change.StoredHistory), its times rounded by round to the
// precision the store keeps.
func HistoryOf(c *askonce.Change, now time.Time, round func(time.Time) time.Time) *askonce.HistoryEntry {
	h := c.StoredHistory(now)
	if h != nil {
		h.At = round(h.At)
		if h.ExpiresAt != nil {
			t := round(*h.ExpiresAt)
			h.ExpiresAt = &t
		}
	}
	return h
}

// FieldHistoryOf returns c.FieldHistory as a store keeps it, its times
// rounded by round to the precision the store keeps.
func FieldHistoryOf(c *askonce.Change, round func(time.Time) time.Time) []askonce.HistoryEntry {
	hs := make([]askonce.HistoryEntry, len(c.FieldHistory))
	for i, h := range c.FieldHistory {
		h.At = round(h.At)
		if h.ExpiresAt != nil {
			t := round(*h.ExpiresAt)
			h.ExpiresAt = &t
		}
		hs[i] = h
	}
	return hs
}

// AttemptsUsage is the usage of attempts, summed.
func AttemptsUsage(attempts []askonce.Attempt) askonce.Usage {
	var u askonce.Usage
	for _, a := range attempts {
		u = u.Add(a.Usage)
	}
	return u
}

// Wrote hands back to c, once its transaction committed, what the store
// assigned: the events' ids and times, the history entry's fields.
func Wrote(c *askonce.Change, appended []askonce.Event, hist *askonce.HistoryEntry) {
	copy(c.Events, appended)
	if hist != nil {
		*c.History = *hist
	}
}

// NotFound is the error of a job the tenant does not have.
func NotFound(id string) error {
	return askonce.Errorf(askonce.ENOTFOUND, "job %s not found", id)
}

// Conflict is the error of a compare-and-set of j that lost to another
// write: the job is now cur.
func Conflict(j, cur *askonce.Job) error {
	return &askonce.Error{
		Code:    askonce.ECONFLICT,
		Message: fmt.Sprintf("job %s changed concurrently: version is %d, the change was computed from %d", j.ID, cur.Version, j.Version),
		Job:     cur,
	}
}

// Dispatched is the error of a second dispatch of job id, which is now
// cur (nil when it could not be read).
func Dispatched(id string, cur *askonce.Job) error {
	e := &askonce.Error{Code: askonce.ECONFLICT, Message: fmt.Sprintf("job %s was dispatched already", id)}
	if cur != nil {
		e.Job = cur
	}
	return e
}

// Wrap adds context to an unexpected error and passes askonce's own
// errors through unchanged, so that their messages stay fit for callers.
// An error that says the database could not be used (unavailable) is
// askonce.EUNAVAILABLE: the same call may succeed later.
func Wrap(err error, unavailable func(error) bool, format string, args ...any) error {
	var e *askonce.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	if unavailable(err) {
		return askonce.Unavailable(fmt.Errorf(format+": %w", append(args, err)...))
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
