package askonce

import (
	"context"
	"encoding/json"
	"strings"
)

// Report is what a gate-mode agent reports: exactly one of Question (it
// needs clarification), Plan, or Error (it gave up).
type Report struct {
	Question *Question
	Plan     *Plan
	Error    string
	Title    string
	// Raw is the agent's own output, kept on the attempt for audit.
	Raw   string
	Usage Usage

	// Job, when set, is the gate job as the caller holds it (just read,
	// or as an Act returned it), so that it is not read again: the
	// report is applied to it, and only if that fails (its
	// compare-and-set included) to the job read from the store, which
	// decides the outcome and the error.
	// It is ignored unless it is the job Report's tenant and id name,
	// and for an invalid plan, whose attempt is numbered from the stored
	// job.
	Job *Job
}

// ReportResult is gate mode's answer: what the agent must do next.
type ReportResult struct {
	Action Action `json:"action"`
	// Question is set for ask and wait.
	Question *Question `json:"question,omitempty"`
	// Answer (as a person reads it), Value (the answer as JSON, typed)
	// and ResolvedPrompt are set for resume.
	Answer         string          `json:"answer,omitempty"`
	Value          json.RawMessage `json:"value,omitempty"`
	ResolvedPrompt string          `json:"resolvedPrompt,omitempty"`
	// Directive is set for proceed (and for resume after a decline).
	Directive string `json:"directive,omitempty"`
	// Default, with proceed, is the default of the question the agent
	// asked past the hard cap: use it as the answer.
	Default string `json:"default,omitempty"`
	Job     *Job   `json:"job"`
}

// Report takes a gate-mode agent's outcome and answers with what it must do
// (docs/protocol.md "Managed mode and gate mode"): ask, wait, resume, proceed, done or
// fail. Each report is recorded as an attempt so usage adds up. An invalid
// plan is EINVALID listing every problem, and the job is unchanged.
func (e *Engine) Report(ctx context.Context, tenant, id string, r Report) (*ReportResult, error) {
	tenant = tenantOr(tenant)
	if h := r.Job; h != nil && h.ID == id && h.TenantID == tenant && (r.Plan == nil || len(r.Plan.Validate(h.SpecSchema)) == 0) {
		// Every report commits (its attempt), with a compare-and-set
		// on h's version, so a stale h fails; an unreachable store is
		// not a stale job (see begin).
		if res, err := e.report(ctx, h, r); err == nil || ErrorCode(err) == EUNAVAILABLE {
			return res, err
		}
	}
	j, err := e.Store.GetJob(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	return e.report(ctx, j, r)
}

// report applies a gate-mode report to j.
func (e *Engine) report(ctx context.Context, j *Job, r Report) (*ReportResult, error) {
	if j.Mode != ModeGate {
		return nil, Errorf(ECONFLICT, "job %s is managed by askonce; only gate-mode jobs take reports", j.ID)
	}
	n := 0
	for _, set := range []bool{r.Question != nil, r.Plan != nil, r.Error != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, Errorf(EINVALID, "a report carries exactly one of question, plan or error")
	}
	a := Attempt{N: j.AttemptCount + 1, Reason: ReasonReport, StartedAt: e.now(), Raw: capString(r.Raw, e.maxRaw()), Usage: r.Usage}
	var in Input
	switch {
	case r.Plan != nil:
		if errs := r.Plan.Validate(j.SpecSchema); len(errs) > 0 {
			a.Outcome, a.Error = AttemptInvalid, strings.Join(errs, "; ")
			if err := e.Store.AddAttempt(ctx, j.TenantID, j.ID, a, attemptEvent(j, a)); err != nil {
				return nil, err
			}
			return nil, Errorf(EINVALID, "plan is invalid: %s", strings.Join(errs, "; "))
		}
		a.Outcome = AttemptPlan
		in = Planned{Plan: r.Plan, Title: r.Title}
	case r.Question != nil:
		q := r.Question.Clone()
		if err := q.Normalize(); err != nil {
			return nil, err
		}
		a.Outcome = AttemptQuestion
		asked, err := e.asked(ctx, j, q, r.Title, false)
		if err != nil {
			return nil, err
		}
		in = asked
	default:
		a.Outcome, a.Error = AttemptError, r.Error
		in = Failed{Message: r.Error}
	}
	next, fx, err := e.apply(ctx, j, in, []Attempt{a})
	if err != nil {
		return nil, err
	}
	res := &ReportResult{Action: fx.Action, Directive: fx.Directive, Default: fx.Default, Job: next}
	switch fx.Action {
	case ActionAsk, ActionWait:
		res.Question = next.Question
	case ActionResume:
		res.Answer, res.Value, res.ResolvedPrompt = next.Answer.String(), next.Answer.JSON(), next.Prompt()
	}
	return res, nil
}
