package postgres

import (
	"encoding/json"
	"time"

	"github.com/askonce/askonce"
)

// Times are timestamptz, which keeps microseconds: the store truncates
// the times it assigns and returns to that precision, so that what a
// caller holds equals what it reads back. The zero time is NULL.

// micro truncates t to the precision stored, in UTC.
func micro(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

func timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func timePtrArg(t *time.Time) any {
	if t == nil {
		return nil
	}
	return timeArg(*t)
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// stamp is the store's clock reading, in the precision it stores.
func (s *Store) stamp() time.Time { return micro(s.now()) }

// rawArg stores raw JSON; empty is NULL.
func rawArg(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// listArg stores a list of strings as text[]; empty is NULL.
func listArg(v []string) any {
	if len(v) == 0 {
		return nil
	}
	return v
}

// textArg stores an optional text column: empty is NULL, which the
// clarification columns are until set (NULL, never an empty string).
func textArg(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// attemptArgs returns the insertAttempt values of a.
func attemptArgs(tenant, jobID string, a *askonce.Attempt) []any {
	return []any{
		tenant, jobID, a.N, string(a.Reason), timeArg(a.StartedAt), int64(a.Duration),
		string(a.Outcome), a.Raw, a.Error,
		a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD,
	}
}

func scanAttempt(row interface{ Scan(...any) error }) (askonce.Attempt, error) {
	var (
		a               askonce.Attempt
		reason, outcome string
		startedAt       *time.Time
		duration        int64
	)
	err := row.Scan(&a.N, &reason, &startedAt, &duration, &outcome, &a.Raw, &a.Error,
		&a.Usage.PromptTokens, &a.Usage.CompletionTokens, &a.Usage.CostUSD)
	a.Reason = askonce.AttemptReason(reason)
	a.Outcome = askonce.AttemptOutcome(outcome)
	a.StartedAt = utc(startedAt)
	a.Duration = time.Duration(duration)
	return a, err
}

func scanEvent(row interface{ Scan(...any) error }) (askonce.Event, error) {
	var (
		e    askonce.Event
		typ  string
		at   time.Time
		data []byte
	)
	err := row.Scan(&e.ID, &e.TenantID, &e.JobID, &typ, &at, &data)
	e.Type = askonce.EventType(typ)
	e.At = at.UTC()
	if len(data) > 0 {
		e.Data = json.RawMessage(data)
	}
	return e, err
}

// historyColumns are what scanHistory reads, of history or memory (whose
// scope and project (scope_key) a history query names as constants).
const historyColumns = `tenant_id, session_id, scope, scope_key, question_hash, type, question, answer, job_id, at, expires_at, uses`

// sessionColumns are historyColumns of the history table.
const sessionColumns = `tenant_id, session_id, 'session' AS scope, '' AS scope_key, question_hash, type, question, answer, job_id, at, NULL::timestamptz AS expires_at, 0::bigint AS uses`

func scanHistory(row interface{ Scan(...any) error }) (askonce.HistoryEntry, error) {
	var (
		h         askonce.HistoryEntry
		typ, sc   string
		at        time.Time
		expiresAt *time.Time
	)
	err := row.Scan(&h.TenantID, &h.SessionID, &sc, &h.Project, &h.QuestionHash, &typ, &h.Question, &h.Answer, &h.JobID, &at, &expiresAt, &h.Uses)
	h.Scope = askonce.MemoryScope(sc)
	h.Type = askonce.QuestionType(typ)
	h.At = at.UTC()
	h.ExpiresAt = utcPtr(expiresAt)
	return h, err
}
