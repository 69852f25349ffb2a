package sqlite

import (
	"database/sql"
	"encoding/json"
	"time"

	"github.com/askonce/askonce"
)

// Times are stored as INTEGER unix nanoseconds, which round-trip exactly.
// The zero time, which has no unix nanosecond value, is stored as NULL.

func timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func timePtrArg(t *time.Time) any {
	if t == nil {
		return nil
	}
	return timeArg(*t)
}

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func fromNullNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromNanos(n.Int64)
}

func fromNullNanosPtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromNanos(n.Int64)
	return &t
}

// stamp is the store's clock reading, in the precision it stores.
func (s *Store) stamp() time.Time { return fromNanos(s.now().UnixNano()) }

// rawArg stores raw JSON as TEXT; empty is NULL.
func rawArg(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

func fromNullRaw(s sql.NullString) json.RawMessage {
	if !s.Valid || s.String == "" {
		return nil
	}
	return json.RawMessage(s.String)
}

// stringsArg stores a list of strings as a JSON array; empty is NULL.
func stringsArg(v []string) (any, error) {
	if len(v) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func fromNullStrings(s sql.NullString) ([]string, error) {
	if !s.Valid || s.String == "" {
		return nil, nil
	}
	var v []string
	if err := json.Unmarshal([]byte(s.String), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// textArg stores an optional text column: empty is NULL, which the
// clarification columns are until set (NULL, never an empty string).
func textArg(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func boolArg(b bool) int64 {
	if b {
		return 1
	}
	return 0
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
		startedAt       sql.NullInt64
		duration        int64
	)
	err := row.Scan(&a.N, &reason, &startedAt, &duration, &outcome, &a.Raw, &a.Error,
		&a.Usage.PromptTokens, &a.Usage.CompletionTokens, &a.Usage.CostUSD)
	a.Reason = askonce.AttemptReason(reason)
	a.Outcome = askonce.AttemptOutcome(outcome)
	a.StartedAt = fromNullNanos(startedAt)
	a.Duration = time.Duration(duration)
	return a, err
}

func scanEvent(row interface{ Scan(...any) error }) (askonce.Event, error) {
	var (
		e    askonce.Event
		typ  string
		at   int64
		data sql.NullString
	)
	err := row.Scan(&e.ID, &e.TenantID, &e.JobID, &typ, &at, &data)
	e.Type = askonce.EventType(typ)
	e.At = fromNanos(at)
	e.Data = fromNullRaw(data)
	return e, err
}

func scanHistory(row interface{ Scan(...any) error }) (askonce.HistoryEntry, error) {
	var (
		h   askonce.HistoryEntry
		typ string
		at  int64
	)
	err := row.Scan(&h.TenantID, &h.SessionID, &h.QuestionHash, &typ, &h.Question, &h.Answer, &h.JobID, &at)
	h.Type = askonce.QuestionType(typ)
	h.At = fromNanos(at)
	return h, err
}
