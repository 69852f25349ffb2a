package askonce

import (
	"context"
	"errors"
	"fmt"
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
		_, _, err := e.act(ctx, Act{TenantID: r.TenantID, ID: r.ID}, Expire{})
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

// Recover resumes the managed jobs left in planning by a process that
// died (docs/protocol.md rule 13): those whose planning lease lapsed, and
// those whose lease this engine's Owner holds, left by an earlier process
// of the same Owner. Call it once when the process starts, before it plans
// anything; TakeOver does the rest while it runs. Each job is claimed with
// a compare-and-set (a recovered event, this engine's lease), so two
// recovering processes never both run it, and then planned in the
// background, as Start does (Drain waits for it). It returns how many jobs
// it claimed, and every store error it met on the way (joined); a job
// another process claimed first is not an error.
func (e *Engine) Recover(ctx context.Context) (int, error) {
	return e.resume(ctx, LeaseQuery{Now: e.now(), Owner: e.owner(), Limit: 100})
}

// TakeOver resumes the managed jobs in planning whose lease lapsed: their
// process died or stopped renewing. It claims them as Recover does. Run it
// periodically, in one process of those sharing the store (see Sweep).
func (e *Engine) TakeOver(ctx context.Context) (int, error) {
	return e.resume(ctx, LeaseQuery{Now: e.now(), Limit: 100})
}

func (e *Engine) resume(ctx context.Context, q LeaseQuery) (int, error) {
	refs, err := e.Store.LapsedLeases(ctx, q)
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
		if j.Status != StatusPlanning || j.Mode != ModeManaged || (j.Lease.Until.After(q.Now) && j.Lease.Owner != q.Owner) {
			continue // finished, or claimed or renewed, since the query
		}
		if j.Lease.Owner == e.owner() && e.holds(r) {
			// This engine is planning it still: a renewal came late (a
			// loaded machine). The run in flight renews the lease; a
			// second run here would only race it to the same outcome.
			continue
		}
		claimed := j.Clone()
		claimed.UpdatedAt = e.now()
		e.lease(claimed)
		ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventRecovered, At: claimed.UpdatedAt}
		ev.Data = eventData(recoveredData{From: j.Lease.Owner})
		if err := e.Store.UpdateJob(ctx, &Change{Job: claimed, Events: []Event{ev}}); err != nil {
			if c := ErrorCode(err); c != ECONFLICT && c != ENOTFOUND {
				errs = append(errs, fmt.Errorf("recover job %s: claim: %w", r.ID, err))
			}
			continue
		}
		// In the background, like a Start: a sweep must not wait for
		// slow interpreters, or its lead would lapse meanwhile.
		it := resumption(claimed)
		e.background(ctx, claimed, &it)
		n++
	}
	return n, errors.Join(errs...)
}

// Sweep runs the periodic work that must happen once across the processes
// sharing the store, if this engine leads them (Store.Lead): it applies
// overdue questions (ExpireDue) and takes over lapsed planning leases
// (TakeOver). The lead lasts PlanningLease and is renewed by every Sweep,
// so run it more often than that; when the leader dies, another process
// leads within one PlanningLease. It reports whether this engine led,
// with how many jobs expired and were taken over.
func (e *Engine) Sweep(ctx context.Context) (Swept, error) {
	now := e.now()
	led, err := e.Store.Lead(ctx, Leadership{Name: "sweep", Owner: e.owner(), Now: now, Until: now.Add(e.planningLease())})
	if err != nil || !led {
		return Swept{}, err
	}
	sw := Swept{Led: true}
	var errs [2]error
	sw.Expired, errs[0] = e.ExpireDue(ctx)
	sw.TakenOver, errs[1] = e.TakeOver(ctx)
	return sw, errors.Join(errs[:]...)
}

// Swept is what one Sweep did.
type Swept struct {
	Led       bool
	Expired   int
	TakenOver int
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
