package askonce

import (
	"context"
)

// ActKind is what a person does to a job.
type ActKind string

// The acts.
const (
	// ActAnswer answers the job's question with Act.Answer; in managed
	// mode the resolved prompt is interpreted again. It never leads to a
	// new question: if the interpreter asks again, the job's hard cap
	// decides. An answer that does not fit the question is EINVALID with
	// the allowed values, and the job stays pending.
	ActAnswer ActKind = "answer"
	// ActDecline declines the question (MCP decline): the question's
	// default is applied, or the job proceeds under the fallback
	// directive.
	ActDecline ActKind = "decline"
	// ActCancel cancels a job that is planning or pending.
	ActCancel ActKind = "cancel"
)

// Act is one act of a person on a job (Engine.Act): what they do, the
// job they do it to, and whether the caller waits for the planning it
// leads to.
//
// The target is Job when set, else Token when set, else TenantID and ID.
type Act struct {
	Do ActKind

	// Answer is the answer of ActAnswer: text the person typed
	// (TextAnswer) or typed JSON (AnswerOf).
	Answer Answer
	// DontRemember keeps the answer out of the job's project and
	// tenant memory (the session's repeat guard still has it).
	DontRemember bool

	// TenantID and ID name a stored job ("" is DefaultTenant).
	TenantID, ID string
	// Job is the job as the caller just read it (to show its question,
	// say), so that it is not read again: the act is applied to it, and
	// only if that fails (its compare-and-set included) to the job read
	// from the store, which decides the outcome and the error.
	Job *Job
	// Token is an answer link's token (AnswerToken), whose job the act
	// is done to while its question is live: a dead link (the job left
	// pending, or the question expired) is ECONFLICT carrying the job;
	// an unknown one ENOTFOUND.
	Token string

	// Background returns as soon as the act is committed, with the
	// committed state (status planning in managed mode), and plans in
	// the background; the Run ends when planning does. Otherwise Act
	// returns when planning has ended, with its outcome, and the Run
	// has ended. The background planning is not cancelled with ctx (see
	// Start).
	Background bool
}

// Act does a person's act on a job: answers its question, declines it,
// or cancels the job, on a stored job (by id), a job the caller holds,
// or the job of an answer link. It returns the job, as committed (in
// the background) or as planning left it, and the Run of its planning.
// With a fast interpreter (Fast) the outcome commits with the act and
// the Run has ended either way.
//
// A job not in a state the act applies to is ECONFLICT carrying the
// job's state; an invalid act (an unknown Do, an answer of nothing) is
// EINVALID and changes nothing. Who acts is the ctx's Answerer
// (WithAnswerer).
func (e *Engine) Act(ctx context.Context, a Act) (*Job, *Run, error) {
	var in Input
	switch a.Do {
	case ActAnswer:
		in = Answered{Answer: a.Answer, Source: SourceUser, DontRemember: a.DontRemember, By: AnswererFrom(ctx)}
	case ActDecline:
		in = Decline{By: AnswererFrom(ctx)}
	case ActCancel:
		in = Cancel{}
	default:
		return nil, nil, Errorf(EINVALID, "act %q is not answer, decline or cancel", a.Do)
	}
	return e.act(ctx, a, in)
}

// act applies in to a's target and plans what it leads to, as a asks.
// The expiry sweep's Expire comes this way too.
func (e *Engine) act(ctx context.Context, a Act, in Input) (*Job, *Run, error) {
	var next *Job
	var it *Interpretation
	var err error
	switch {
	case a.Job != nil:
		e.pending.take(a.Job.TenantID, a.Job.ID)
		next, it, err = e.begin(ctx, a.Job, a.Job.TenantID, a.Job.ID, in)
	case a.Token != "":
		next, it, err = e.byToken(ctx, a.Token, in)
	default:
		tenant := tenantOr(a.TenantID)
		next, it, err = e.begin(ctx, e.pending.take(tenant, a.ID), tenant, a.ID, in)
	}
	if err != nil {
		return nil, nil, err
	}
	if a.Background {
		return next, e.background(ctx, next, it), nil
	}
	if it != nil {
		next, err = e.interpret(ctx, next, *it)
	}
	return next, finished(next, err), err
}

// begin applies a user input to a job and returns the committed job
// with the interpretation still to run (nil when none). It applies in to
// held, when not nil (the job the caller read, or the job as this engine
// committed it pending: see pendingJobs), and else, or if that fails
// (its compare-and-set included; not an unreachable store), to the job
// read from the store, which decides the outcome and the error.
func (e *Engine) begin(ctx context.Context, held *Job, tenant, id string, in Input) (*Job, *Interpretation, error) {
	if held != nil {
		// An unreachable store is not a stale job: trying again from
		// the stored job could meet this input, committed after all,
		// as a conflict (see commit).
		if next, it, err := e.advance(ctx, held, in); err == nil || ErrorCode(err) == EUNAVAILABLE {
			return next, it, err
		}
	}
	j, err := e.Store.GetJob(ctx, tenant, id)
	if err != nil {
		return nil, nil, err
	}
	return e.advance(ctx, j, in)
}

// byToken applies in to the live job of an answer link (a
// compare-and-set on the version checked).
func (e *Engine) byToken(ctx context.Context, token string, in Input) (*Job, *Interpretation, error) {
	j, err := e.liveByToken(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	e.pending.take(j.TenantID, j.ID)
	return e.advance(ctx, j, in)
}
