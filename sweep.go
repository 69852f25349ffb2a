package askonce

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ExpireDue applies Expire to every overdue pending question: its default
// is applied (and, in managed mode, interpreted), or the job expires. It
// returns how many jobs it changed.
func (e *Engine) ExpireDue(ctx context.Context) (int, error) {
	refs, err := e.Store.DueQuestions(ctx, e.now(), 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range refs {
		_, err := e.transition(ctx, r.TenantID, r.ID, Expire{})
		switch ErrorCode(err) {
		case "":
			n++
		case ECONFLICT, ENOTFOUND:
			// Answered or cancelled since the sweep looked: nothing to do.
		default:
			return n, fmt.Errorf("expire job %s: %w", r.ID, err)
		}
	}
	return n, nil
}

// Recover resumes managed jobs left in planning by a dead process and not
// updated since before (docs/protocol.md rule 13). Each job is claimed with a
// compare-and-set first, so two recovering processes never both run it. It
// returns how many jobs it resumed, and every store error it met on the
// way (joined); a job another process claimed first is not an error.
func (e *Engine) Recover(ctx context.Context, before time.Time) (int, error) {
	refs, err := e.Store.StalePlanning(ctx, before, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, r := range refs {
		j, err := e.Store.GetJob(ctx, r.TenantID, r.ID)
		if err != nil {
			if ErrorCode(err) != ENOTFOUND {
				errs = append(errs, fmt.Errorf("recover job %s: read: %w", r.ID, err))
			}
			continue
		}
		claimed := j.Clone()
		claimed.UpdatedAt = e.now()
		ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventRecovered, At: claimed.UpdatedAt}
		if err := e.Store.UpdateJob(ctx, &Change{Job: claimed, Events: []Event{ev}}); err != nil {
			if c := ErrorCode(err); c != ECONFLICT && c != ENOTFOUND {
				errs = append(errs, fmt.Errorf("recover job %s: claim: %w", r.ID, err))
			}
			continue
		}
		if _, err := e.interpret(ctx, claimed, resumption(claimed)); err != nil {
			errs = append(errs, fmt.Errorf("recover job %s: %w", r.ID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// resumption is the interpretation a planning job was in when its process
// died, derived from its clarification state.
func resumption(j *Job) Interpretation {
	prompt := j.Prompt()
	switch {
	case j.FallbackUsed:
		return Interpretation{Prompt: prompt, Reason: ReasonFallback, Directive: FallbackDirective}
	case j.ClarificationStatus == ClarificationAnswered:
		return Interpretation{Prompt: prompt, Reason: ReasonClarificationAnswer}
	}
	return Interpretation{Prompt: prompt, Reason: ReasonInitial}
}
