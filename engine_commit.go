package askonce

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// write is the commit sequence of every change: it commits c (see
// commit), remembers the job if it is left pending (pendingJobs) and
// tells the Observer of the steps committed.
func (e *Engine) write(ctx context.Context, c *Change, create bool, steps []step) error {
	if err := e.commit(ctx, c, create); err != nil {
		return err
	}
	e.pending.keep(c.Job)
	e.observe(steps)
	return nil
}

// commit writes c, a new job with create (Store.CreateJob), else a
// change of a stored job (Store.UpdateJob), and tells whether it
// committed when the store says it could not be reached (EUNAVAILABLE):
// a connection that broke during the commit leaves that unknown, so the
// job is read back once. A change that committed after all is a success,
// never a failure, and c.Job is the stored job; one that did not returns
// the store's error, which a retry may clear; and when the read cannot
// tell, the error is EUNAVAILABLE naming the job, so that the caller
// looks it up instead of trying again and meeting its own change as a
// conflict.
func (e *Engine) commit(ctx context.Context, c *Change, create bool) error {
	if c.Dispatch && e.NoBuilder {
		undispatched(c)
	}
	from := c.Job.Version // the store sets it on success
	write := e.Store.UpdateJob
	if create {
		write = e.Store.CreateJob
	}
	err := write(ctx, c)
	if err != nil && create {
		err = fmt.Errorf("create job: %w", err)
	}
	if ErrorCode(err) != EUNAVAILABLE {
		return err
	}
	stored, gerr := e.Store.GetJob(ctx, c.Job.TenantID, c.Job.ID)
	switch {
	case gerr == nil && (create || stored.Version == from+1 && sameOutcome(stored, c.Job)):
		*c.Job = *stored
		return nil
	case create && ErrorCode(gerr) == ENOTFOUND,
		gerr == nil && !create && stored.Version <= from+1:
		// Not there, the version unmoved, or moved by another
		// change: this one did not commit.
		return err
	}
	ue := Unavailable(err)
	if create {
		ue.Message = fmt.Sprintf("the database cannot be reached; job %s may not have been created: retry with the same Idempotency-Key, or look it up (GET /jobs/%s)", c.Job.ID, c.Job.ID)
	} else {
		ue.Message = fmt.Sprintf("the database cannot be reached; the change to job %s may have been applied: look it up (GET /jobs/%s) before trying again", c.Job.ID, c.Job.ID)
	}
	return ue
}

// undispatched turns the dispatch of a success into none: no queue
// entry and no dispatched event, for an engine that no builder follows.
func undispatched(c *Change) {
	c.Dispatch = false
	c.Job.Dispatch = DispatchNoBuilder
	c.Events = slices.DeleteFunc(c.Events, func(ev Event) bool { return ev.Type == EventDispatched })
}

// sameOutcome reports whether the stored job s is the state j a change
// wrote, as far as the change decided it: of concurrent changes from the
// same version only one commits, and they differ in what they set (the
// answer, who gave it and when, the status it led to).
func sameOutcome(s, j *Job) bool {
	return s.Status == j.Status && s.ClarificationStatus == j.ClarificationStatus &&
		s.Answer.Equal(j.Answer) && s.AnswerSource == j.AnswerSource &&
		s.AnsweredVia == j.AnsweredVia && s.AnsweredBy == j.AnsweredBy &&
		sameTime(s.AnsweredAt, j.AnsweredAt) && s.Error == j.Error &&
		s.FallbackUsed == j.FallbackUsed && s.Title == j.Title
}

// sameTime compares times as a store keeps them (PostgreSQL to the
// microsecond).
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	d := a.Sub(*b)
	return d < time.Microsecond && d > -time.Microsecond
}
