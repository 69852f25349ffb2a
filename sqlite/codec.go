package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
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

// stamp is the store's clock reading, in the precision it stores.
func (s *Store) stamp() time.Time { return toNanos(s.now()) }

// toNanos is t in the precision stored, in UTC.
func toNanos(t time.Time) time.Time { return fromNanos(t.UnixNano()) }

// rawArg stores raw JSON as TEXT; empty is NULL.
func rawArg(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
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

func boolArg(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// logKind is the kind of a record in job_log (migration 00010).
type logKind int64

const (
	logJob      logKind = iota // the fields a job is created with
	logAttempt                 // an attempt, by number
	logEvent                   // an event, by id
	logDispatch                // the job's dispatch
)

// logMaxN is the largest attempt number or event id job_log keys hold.
const logMaxN = 1<<30 - 1

// logID is the rowid in job_log of record n of kind of the job whose
// log_seq is seq: a job's records are side by side, by kind, then n.
func logID(seq int64, kind logKind, n int64) int64 { return seq<<32 | int64(kind)<<30 | n }

// appendAttempt appends to dst the values of the job_log record of a, an
// attempt of the job whose log_seq is seq, but its last two columns
// (candidates and memory, always NULL).
func appendAttempt(dst []any, seq int64, a *askonce.Attempt) ([]any, error) {
	if a.N < 0 || a.N > logMaxN {
		return nil, askonce.Errorf(askonce.EINVALID, "attempt number %d is out of range", a.N)
	}
	more, err := attemptMore(a)
	if err != nil {
		return nil, fmt.Errorf("encode attempt %d: %w", a.N, err)
	}
	return append(dst, logID(seq, logAttempt, int64(a.N)), timeArg(a.StartedAt), string(a.Outcome), a.Raw, more), nil
}

// attemptMore is the more column of an attempt's job_log record: a JSON
// array of its reason, duration in nanoseconds, prompt and completion
// tokens, cost in USD and error, in that order, without the trailing
// values that are zero or empty (migration 00010). One column instead
// of six: SQLite spends a header byte on every column of a record,
// NULL or not.
func attemptMore(a *askonce.Attempt) (string, error) {
	v := []any{string(a.Reason), int64(a.Duration), a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD, a.Error}
	for len(v) > 0 && zero(v[len(v)-1]) {
		v = v[:len(v)-1]
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// zero is true for the empty string and for integers and floats whose
// bits are 0 (not -0, which would read back as 0).
func zero(v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case int64:
		return v == 0
	case float64:
		return math.Float64bits(v) == 0
	}
	return false
}

// scanAttemptMore decodes attemptMore's array into a.
func scanAttemptMore(more string, a *askonce.Attempt) error {
	var (
		parts    []json.RawMessage
		reason   string
		duration int64
	)
	if err := json.Unmarshal([]byte(more), &parts); err != nil {
		return err
	}
	dest := []any{&reason, &duration, &a.Usage.PromptTokens, &a.Usage.CompletionTokens, &a.Usage.CostUSD, &a.Error}
	if len(parts) > len(dest) {
		return fmt.Errorf("%d values, want at most %d", len(parts), len(dest))
	}
	for i, p := range parts {
		if err := json.Unmarshal(p, dest[i]); err != nil {
			return err
		}
	}
	a.Reason = askonce.AttemptReason(reason)
	a.Duration = time.Duration(duration)
	return nil
}

func scanAttempt(row sqlstore.Scanner) (askonce.Attempt, error) {
	var (
		a         askonce.Attempt
		outcome   string
		startedAt sql.NullInt64
		more      string
	)
	if err := row.Scan(&a.N, &startedAt, &outcome, &a.Raw, &more); err != nil {
		return a, err
	}
	a.Outcome = askonce.AttemptOutcome(outcome)
	a.StartedAt = fromNullNanos(startedAt)
	if err := scanAttemptMore(more, &a); err != nil {
		return a, fmt.Errorf("decode attempt %d: %w", a.N, err)
	}
	return a, nil
}
