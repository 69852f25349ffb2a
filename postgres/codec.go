package postgres

import (
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
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

func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// stamp is the store's clock reading, in the precision it stores.
func (s *Store) stamp() time.Time { return micro(s.now()) }

// listArg stores a list of strings as text[]; empty is NULL.
func listArg(v []string) any {
	if len(v) == 0 {
		return nil
	}
	return v
}

// attemptArgs returns the insertAttempt values of a.
func attemptArgs(tenant, jobID string, a *askonce.Attempt) []any {
	return []any{
		tenant, jobID, a.N, string(a.Reason), timeArg(a.StartedAt), int64(a.Duration),
		string(a.Outcome), a.Raw, a.Error,
		a.Usage.PromptTokens, a.Usage.CompletionTokens, a.Usage.CostUSD,
	}
}

func scanAttempt(row sqlstore.Scanner) (askonce.Attempt, error) {
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
