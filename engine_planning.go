package askonce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// strategy is how the planning loop (loop) commits a chain of steps.
type strategy struct {
	// atEnd commits the whole chain once, when it ends, in one change:
	// a fast interpreter's (Fast), whose calls are cheap enough to run
	// before anything is written. Otherwise each step commits by itself
	// (a compare-and-set) before the next interpreter call, and the
	// retried attempts are stored as they happen.
	atEnd bool
	// create (atEnd only) commits the chain as a new job (CreateJob).
	create bool
	// handOff (each step only) ends the loop after its first step,
	// returning the interpretation that step asks for, for the caller
	// to run (in the background, say).
	handOff bool
}

// loop is the planning loop, the one of every path: create, an act, a
// resumed or recovered run. From j it steps in, the outcome of attempts
// (or, with in nil, first runs the interpretation it), and while Step
// asks for an interpretation (an auto-resolved answer, a fallback), runs
// it and steps its outcome. Step bounds the chain: a job interprets at
// most initial, answer, fallback. c collects the writes of a chain
// committed at its end (with create, it holds the created event
// already) in the order the per-step path writes them: the attempts and
// their events before each step's events, the history entry, the
// dispatch, the question's answer link and notification.
//
// Committing each step, a step computed from an interpreter outcome that
// meets a conflict (the job cancelled, or recovered elsewhere, while the
// interpreter ran) yields: the stored state wins, and is returned.
func (e *Engine) loop(ctx context.Context, j *Job, in Input, attempts []Attempt, it *Interpretation, how strategy, c *Change) (*Job, *Interpretation, error) {
	// steps are those of a chain committed at its end, in room on the
	// stack for one longer than a job's usual one or two.
	var room [4]step
	steps := room[:0]
	cur := j
	for {
		planned := in == nil
		if planned {
			var err error
			if in, attempts, err = e.plan(ctx, cur, *it, how.atEnd); err != nil {
				return nil, nil, err
			}
		}
		if !how.atEnd {
			next, fx, err := e.apply(ctx, cur, in, attempts)
			if err != nil {
				var ae *Error
				if planned && errors.As(err, &ae) && ae.Code == ECONFLICT && ae.Job != nil {
					return ae.Job, nil, nil
				}
				return nil, nil, err
			}
			if fx.Interpret == nil || how.handOff {
				return next, fx.Interpret, nil
			}
			cur, in, it = next, nil, fx.Interpret
			continue
		}
		next, fx, err := Step(cur, in, e.now())
		if err != nil {
			return nil, nil, err
		}
		c.add(cur, fx, attempts)
		if len(attempts) > 0 {
			// plan counted the retried attempts on cur; this is the
			// final one, which the store counts on commit.
			next.AttemptCount++
		}
		steps = append(steps, step{next, fx, attempts})
		cur, in, attempts = next, nil, nil
		if fx.Interpret == nil {
			break
		}
		it = fx.Interpret
	}
	e.lease(cur)
	c.Job = cur
	e.questionChange(j, c)
	if !how.create && len(c.Events) == 0 && len(c.Attempts) == 0 {
		return c.Job, nil, nil
	}
	if err := e.write(ctx, c, how.create, steps); err != nil {
		return nil, nil, err
	}
	return c.Job, nil, nil
}

// interpret runs the planning loop of a stored job in planning from the
// interpretation it is in, committing each step, while this engine
// renews the job's planning lease.
func (e *Engine) interpret(ctx context.Context, j *Job, it Interpretation) (*Job, error) {
	defer e.hold(j)()
	next, _, err := e.loop(ctx, j, nil, nil, &it, strategy{}, nil)
	return next, err
}

// plan runs up to MaxAttempts interpreter calls for one interpretation and
// returns the outcome as a Step input, with the attempts to write
// alongside it: the final one, and with keep the retried ones before it
// too. Without keep retried attempts are stored as they happen.
func (e *Engine) plan(ctx context.Context, j *Job, it Interpretation, keep bool) (Input, []Attempt, error) {
	var kept []Attempt
	var feedback []string
	reason := it.Reason
	var answer json.RawMessage
	if it.Prompt == j.ResolvedPrompt && !j.Answer.IsZero() {
		answer = j.Answer.JSON()
	}
	for i := 1; ; i++ {
		req := &Request{
			JobID: j.ID, Goal: j.Goal, Prompt: it.Prompt, Answer: answer, Profile: j.Profile, Files: j.Files, Candidates: j.Candidates,
			Attempt: i, Reason: reason, Feedback: feedback, Directive: it.Directive, SpecSchema: j.SpecSchema,
		}
		a, out := e.call(ctx, j, req)
		a.N = j.AttemptCount + 1
		final := append(kept, a)
		switch {
		case a.Outcome == AttemptError:
			return Failed{Message: "interpreter error: " + a.Error}, final, nil
		case a.Outcome == AttemptPlan:
			return Planned{Plan: out.Plan, Title: out.Title}, final, nil
		case a.Outcome == AttemptQuestion:
			in, err := e.asked(ctx, j, *out.Question, out.Title, it.newSession)
			return in, final, err
		case i >= e.maxAttempts():
			return Invalid{Raw: a.Raw, Errors: feedback}, final, nil
		}
		if keep {
			kept = final
		} else {
			if err := e.Store.AddAttempt(ctx, j.TenantID, j.ID, a, attemptEvent(j, a)); err != nil {
				return nil, nil, err
			}
			if e.Observer != nil {
				e.Observer.Attempt(j, a)
			}
		}
		j.AttemptCount++
		feedback = strings.Split(a.Error, "\n")
		reason = ReasonRetryValidation
		if out == nil {
			reason = ReasonRetryParseError
		}
	}
}

// call makes one interpreter call and classifies it. For an invalid
// attempt, out is nil on a parse error and set on a validation error.
func (e *Engine) call(ctx context.Context, j *Job, req *Request) (a Attempt, out *Outcome) {
	ctx, span := otel.Tracer(TracerName).Start(ctx, "askonce.interpret")
	if span.IsRecording() {
		// Only then: with tracing off the attributes would cost
		// allocations for nothing.
		span.SetAttributes(
			attribute.String("askonce.job.id", j.ID),
			attribute.Int("askonce.attempt", req.Attempt),
			attribute.String("askonce.attempt.reason", string(req.Reason)),
		)
	}
	defer func() { endAttemptSpan(span, a) }()
	a = Attempt{Reason: req.Reason, StartedAt: e.now()}
	cctx, cancel := context.WithTimeout(ctx, e.interpretTimeout())
	defer cancel()
	resp, err := e.Interpreter.Interpret(cctx, req)
	a.Duration = e.now().Sub(a.StartedAt)
	if resp != nil {
		a.Usage = resp.Usage
		a.Raw = capString(string(resp.Raw), e.maxRaw())
	}
	if err != nil {
		if cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			err = fmt.Errorf("timed out after %s: %w", e.interpretTimeout(), err)
		}
		a.Outcome, a.Error = AttemptError, err.Error()
		return a, nil
	}
	if resp == nil {
		a.Outcome, a.Error = AttemptError, "interpreter returned no response"
		return a, nil
	}
	if len(resp.Raw) > e.maxOutput() {
		a.Outcome = AttemptInvalid
		a.Error = fmt.Sprintf("output is %d bytes; the limit is %d", len(resp.Raw), e.maxOutput())
		return a, nil
	}
	if out = resp.Outcome; out != nil {
		err = out.Check()
	} else {
		out, err = ParseOutcome(resp.Raw)
	}
	if err != nil {
		a.Outcome, a.Error = AttemptInvalid, ErrorMessage(err)
		return a, nil
	}
	if out.Plan != nil {
		if errs := out.Plan.Validate(j.SpecSchema); len(errs) > 0 {
			a.Outcome, a.Error = AttemptInvalid, strings.Join(errs, "\n")
			return a, out
		}
		a.Outcome = AttemptPlan
		return a, out
	}
	a.Outcome = AttemptQuestion
	return a, out
}

// TracerName names the OpenTelemetry tracer of the engine's spans: one
// askonce.interpret span per interpreter attempt. The tracer comes from
// the global provider, a no-op unless tracing is set up.
const TracerName = "github.com/askonce/askonce"

// endAttemptSpan records an attempt's outcome and token use on its span
// and ends it.
func endAttemptSpan(span trace.Span, a Attempt) {
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("askonce.attempt.outcome", string(a.Outcome)),
			attribute.Int64("askonce.tokens.prompt", a.Usage.PromptTokens),
			attribute.Int64("askonce.tokens.completion", a.Usage.CompletionTokens),
		)
		if a.Outcome == AttemptError {
			span.SetStatus(codes.Error, a.Error)
		}
	}
	span.End()
}

// asked builds the Asked input for a question: it sets the expiry and, for
// a job that has not asked yet, looks the question up in the session's
// memory (the repeat guard's I/O, kept out of Step: its session's, and
// its project's and tenant's as its Memory reaches; not at all for a
// fresh job, nor for a session minted for the job, newSession, which has
// none, when that is all it reads) and asks the
// interpreter's gating policy, if it has one (rule 8).
func (e *Engine) asked(ctx context.Context, j *Job, q Question, title string, newSession bool) (Asked, error) {
	in := Asked{Question: q, Title: title}
	if q.ExpiresAt == nil && e.questionTTL() > 0 {
		t := e.now().Add(e.questionTTL())
		in.Question.ExpiresAt = &t
	}
	if j.ClarificationStatus != ClarificationNone {
		return in, nil
	}
	if g, ok := e.Interpreter.(Gater); ok {
		in.Gated, _ = g.Gate(j.Profile, j.Goal, &q)
	}
	if j.Memory != nil && j.Memory.Fresh {
		return in, nil
	}
	hq := historyQuery(j, QuestionHash(q.Text), e.now())
	if newSession && hq.Project == "" && !hq.Tenant {
		return in, nil
	}
	h, err := e.lookup(ctx, hq)
	if err != nil || h != nil {
		in.Stored = h
		return in, err
	}
	// Each field on its own, by its text (then its name and options):
	// a field answered before is filled and not shown (docs/protocol.md
	// rule 5).
	for _, f := range q.Fields {
		for _, k := range f.keys() {
			hq.QuestionHash = QuestionHash(k)
			h, err := e.lookup(ctx, hq)
			if err != nil {
				return in, err
			}
			if h != nil {
				if in.StoredFields == nil {
					in.StoredFields = map[string]*HistoryEntry{}
				}
				in.StoredFields[f.Name] = h
				break
			}
		}
	}
	return in, nil
}

// lookup is Store.LookupHistory with nil, not an error, for a question
// memory has no answer to.
func (e *Engine) lookup(ctx context.Context, hq HistoryQuery) (*HistoryEntry, error) {
	h, err := e.Store.LookupHistory(ctx, hq)
	switch ErrorCode(err) {
	case "":
		return h, nil
	case ENOTFOUND:
		return nil, nil
	}
	return nil, err
}

// apply is one step of the planning loop committed by itself: it runs
// Step and writes its result with a compare-and-set.
func (e *Engine) apply(ctx context.Context, j *Job, in Input, attempts []Attempt) (*Job, *Effects, error) {
	next, fx, err := Step(j, in, e.now())
	if err != nil {
		return nil, nil, err
	}
	e.lease(next)
	if !fx.Changed() && len(attempts) == 0 {
		return next, fx, nil
	}
	c := &Change{Events: make([]Event, 0, len(attempts)+len(fx.Events))}
	c.add(j, fx, attempts)
	c.Job = next
	e.questionChange(j, c)
	if err := e.write(ctx, c, false, []step{{next, fx, attempts}}); err != nil {
		return nil, nil, err
	}
	return next, fx, nil
}

// add adds to c the writes of one step from cur: the attempts that led
// to it and their events, then the step's events, its history entry
// (only a human's answer has one, once per chain), the recalled answer
// (only the one question's resolution) and its dispatch.
func (c *Change) add(cur *Job, fx *Effects, attempts []Attempt) {
	c.Events = slices.Grow(c.Events, len(attempts)+len(fx.Events))
	for _, a := range attempts {
		c.Events = append(c.Events, attemptEvent(cur, a))
	}
	if c.Attempts == nil {
		c.Attempts = attempts // appending to it later leaves its elements alone
	} else {
		c.Attempts = append(c.Attempts, attempts...)
	}
	c.Events = append(c.Events, fx.Events...)
	if fx.History != nil {
		c.History = fx.History
		c.FieldHistory = fx.FieldHistory
	}
	if fx.Recalled != nil {
		c.Recalled = fx.Recalled
	}
	c.Dispatch = c.Dispatch || fx.Dispatch
}

// chainEvents is room for the events of the usual chain committed at
// its end (an answer, its attempt, planned and dispatched; created, an
// attempt and asked), so that Change.add need not grow them.
const chainEvents = 4

// step is one transition of a job with the attempts that led to it, as
// the Observer is told of it once committed.
type step struct {
	job      *Job
	fx       *Effects
	attempts []Attempt
}

// observe tells the Observer of committed steps, in order.
func (e *Engine) observe(steps []step) {
	if e.Observer == nil {
		return
	}
	for _, s := range steps {
		for _, a := range s.attempts {
			e.Observer.Attempt(s.job, a)
		}
		e.Observer.Transition(s.job, s.fx)
	}
}

// fast reports whether the engine's interpreter declares itself fast
// (Fast): then a change and the planning it leads to commit together.
func (e *Engine) fast() bool {
	f, ok := e.Interpreter.(Fast)
	return ok && f.Fast()
}

// advance applies a user input to the stored job j. With a fast
// interpreter the planning it leads to runs first and commits with it, in
// one compare-and-set on j's version: of concurrent inputs computed from
// j one commits, with its outcome, and the others get ECONFLICT as they
// would on the per-step path. Otherwise the input commits alone and the
// interpretation it asks for is returned, to run after.
func (e *Engine) advance(ctx context.Context, j *Job, in Input) (*Job, *Interpretation, error) {
	how, c := strategy{atEnd: e.fast(), handOff: true}, &Change{}
	if how.atEnd {
		c.Events = make([]Event, 0, chainEvents)
	}
	return e.loop(ctx, j, in, nil, nil, how, c)
}

func attemptEvent(j *Job, a Attempt) Event {
	ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventAttempt, At: a.StartedAt}
	ev.Data = eventData(attemptData{Error: a.Error, N: a.N, Outcome: a.Outcome, Reason: a.Reason})
	return ev
}
