package askonce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Defaults of the Engine's zero-valued settings.
const (
	DefaultMaxAttempts      = 3
	DefaultMaxOutput        = 1 << 20
	DefaultMaxRaw           = 64 << 10
	DefaultQuestionTTL      = 24 * time.Hour
	DefaultInterpretTimeout = 2 * time.Minute
	MaxGoal                 = 32 << 10
	MaxFiles                = 1000
)

// Engine runs the protocol: it drives Step against a Store and an
// Interpreter. One planning loop serves create, answer, fallback and crash
// recovery. The zero value of every setting works; Store is required, and
// Interpreter is required for managed jobs.
//
// An Engine is safe for concurrent use: every state change is a
// compare-and-set in the store, so concurrent callers (and processes) on the
// same job cannot both win.
type Engine struct {
	Store       Store
	Interpreter Interpreter

	// MaxAttempts is the number of interpreter calls per interpretation
	// (PROTOCOL.md rule 9). Default 3.
	MaxAttempts int
	// MaxOutput is the largest interpreter output parsed; a larger one is
	// an invalid attempt. Default 1 MiB.
	MaxOutput int
	// MaxRaw caps the raw output stored on attempts and on a
	// validation_error job. Default 64 KiB.
	MaxRaw int
	// QuestionTTL is how long a question waits for its answer before the
	// expiry sweep applies its default or expires the job. Default 24h;
	// negative means questions never expire.
	QuestionTTL time.Duration
	// InterpretTimeout bounds one interpreter call. Default 2 minutes.
	InterpretTimeout time.Duration
	// HardCap is the policy for jobs created without one. Default fallback.
	HardCap HardCap

	// Now and NewID are the engine's clock and id source; tests set them.
	Now   func() time.Time
	NewID func() string
	// Logger receives warnings about background work. Default discards.
	Logger *slog.Logger
	// Observer, when set, is told of every committed transition and every
	// interpreter attempt (metrics implement it). It must be fast and must
	// not block.
	Observer Observer
}

// Observer receives the engine's measurements.
type Observer interface {
	// Transition is called after a transition of job was committed,
	// with the job's new state and the transition's effects (its Events
	// say what happened).
	Transition(job *Job, fx *Effects)
	// Attempt is called for every interpreter call or gate report.
	Attempt(job *Job, a Attempt)
}

// CreateRequest is what a client sends to create a job.
type CreateRequest struct {
	TenantID  string
	SessionID string
	// Goal is the natural-language goal. Required.
	Goal    string
	Profile string
	// Files are candidate files the goal may refer to.
	Files   []string
	HardCap HardCap
	// Mode defaults to managed; gate jobs wait for an agent's reports.
	Mode       Mode
	SpecSchema json.RawMessage
}

// ProfileLister is implemented by interpreters with named profiles, so that
// an unknown profile is rejected when the job is created.
type ProfileLister interface {
	Profiles() []string
}

// Create persists a new job from a goal, then (in managed mode) runs the
// planning loop: the result is a planned job, a pending job with its one
// question, or a recorded failure. Every outcome is a stored job with an id.
func (e *Engine) Create(ctx context.Context, req CreateRequest) (*Job, error) {
	j, err := e.newJob(req)
	if err != nil {
		return nil, err
	}
	ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventCreated, At: j.CreatedAt}
	ev.Data, _ = json.Marshal(map[string]any{"mode": j.Mode, "sessionId": j.SessionID, "profile": j.Profile})
	if err := e.Store.CreateJob(ctx, j, []Event{ev}); err != nil {
		return nil, fmt.Errorf("create job: %w", err)
	}
	if j.Mode == ModeGate {
		return j, nil
	}
	return e.interpret(ctx, j, Interpretation{Prompt: j.Goal, Reason: ReasonInitial})
}

func (e *Engine) newJob(req CreateRequest) (*Job, error) {
	goal := strings.TrimSpace(req.Goal)
	switch {
	case !utf8.ValidString(req.Goal):
		return nil, Errorf(EINVALID, "goal is not valid UTF-8")
	case goal == "":
		return nil, Errorf(EINVALID, "goal is empty")
	case len(goal) > MaxGoal:
		return nil, Errorf(EINVALID, "goal is %d bytes; the limit is %d", len(goal), MaxGoal)
	case len(req.Files) > MaxFiles:
		return nil, Errorf(EINVALID, "%d files given; the limit is %d", len(req.Files), MaxFiles)
	}
	for _, f := range req.Files {
		if _, ok := insideRoot(f); !ok || f == "" || !utf8.ValidString(f) {
			return nil, Errorf(EINVALID, "file %q is not a relative path inside the project", f)
		}
	}
	mode := req.Mode
	switch mode {
	case "":
		mode = ModeManaged
	case ModeManaged, ModeGate:
	default:
		return nil, Errorf(EINVALID, "mode %q is not managed or gate", mode)
	}
	hc := req.HardCap
	if hc == "" {
		hc = e.HardCap
	}
	switch hc {
	case "":
		hc = HardCapFallback
	case HardCapFallback, HardCapFail:
	default:
		return nil, Errorf(EINVALID, "hardCap %q is not fallback or fail", hc)
	}
	if mode == ModeManaged {
		if e.Interpreter == nil {
			return nil, Errorf(EINVALID, "this engine has no interpreter; create the job in gate mode")
		}
		if pl, ok := e.Interpreter.(ProfileLister); ok && req.Profile != "" && !slices.Contains(pl.Profiles(), req.Profile) {
			return nil, Errorf(EINVALID, "profile %q is unknown; known profiles: %s", req.Profile, strings.Join(pl.Profiles(), ", "))
		}
	}
	if len(req.SpecSchema) > 0 {
		if err := ValidSchema(req.SpecSchema); err != nil {
			return nil, err
		}
	}
	tenant := req.TenantID
	if tenant == "" {
		tenant = DefaultTenant
	}
	session := strings.TrimSpace(req.SessionID)
	if session == "" {
		session = e.newID()
	}
	now := e.now()
	return &Job{
		ID:                  e.newID(),
		TenantID:            tenant,
		SessionID:           session,
		Mode:                mode,
		Goal:                goal,
		Profile:             req.Profile,
		Files:               slices.Clone(req.Files),
		HardCap:             hc,
		SpecSchema:          slices.Clone(req.SpecSchema),
		Title:               DeriveTitle(goal),
		Status:              StatusPlanning,
		ClarificationStatus: ClarificationNone,
		CreatedAt:           now,
		UpdatedAt:           now,
	}, nil
}

// Answer submits the answer to a pending job's question and, in managed
// mode, re-interprets the resolved prompt. It never returns a new question:
// if the interpreter asks again, the job's hard cap decides. A job that is
// not awaiting an answer is ECONFLICT (carrying its state); an answer that
// does not fit the question is EINVALID with the allowed values, and the job
// stays pending.
func (e *Engine) Answer(ctx context.Context, tenant, id, answer string) (*Job, error) {
	return e.transition(ctx, tenant, id, Answered{Answer: answer, Source: SourceUser})
}

// Decline records that the user declined to answer (MCP decline): the
// question's default is applied, or the job proceeds under the fallback
// directive.
func (e *Engine) Decline(ctx context.Context, tenant, id string) (*Job, error) {
	return e.transition(ctx, tenant, id, Decline{})
}

// Cancel cancels a job that is planning or pending.
func (e *Engine) Cancel(ctx context.Context, tenant, id string) (*Job, error) {
	return e.transition(ctx, tenant, id, Cancel{})
}

// transition applies a user input to a stored job and runs the planning
// loop if the transition asks for it.
func (e *Engine) transition(ctx context.Context, tenant, id string, in Input) (*Job, error) {
	j, err := e.Store.GetJob(ctx, tenantOr(tenant), id)
	if err != nil {
		return nil, err
	}
	next, fx, err := e.apply(ctx, j, in, nil)
	if err != nil {
		return nil, err
	}
	if fx.Interpret != nil {
		return e.interpret(ctx, next, *fx.Interpret)
	}
	return next, nil
}

// Get returns a job, or ENOTFOUND.
func (e *Engine) Get(ctx context.Context, tenant, id string) (*Job, error) {
	return e.Store.GetJob(ctx, tenantOr(tenant), id)
}

// List returns one page of the tenant's jobs, newest first.
func (e *Engine) List(ctx context.Context, tenant string, f JobFilter) (*JobPage, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, Errorf(EINVALID, "status %q is not a job status", f.Status)
	}
	return e.Store.ListJobs(ctx, tenantOr(tenant), f)
}

// Events returns the job's audit trail after the given event id.
func (e *Engine) Events(ctx context.Context, tenant, id string, after int64, limit int) ([]Event, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	return e.Store.Events(ctx, tenantOr(tenant), id, after, limit)
}

// Attempts returns the job's interpreter attempts in order.
func (e *Engine) Attempts(ctx context.Context, tenant, id string) ([]Attempt, error) {
	return e.Store.Attempts(ctx, tenantOr(tenant), id)
}

// History returns the session's answered questions.
func (e *Engine) History(ctx context.Context, tenant, session string) ([]HistoryEntry, error) {
	return e.Store.History(ctx, tenantOr(tenant), session)
}

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
}

// ReportResult is gate mode's answer: what the agent must do next.
type ReportResult struct {
	Action Action `json:"action"`
	// Question is set for ask and wait.
	Question *Question `json:"question,omitempty"`
	// Answer and ResolvedPrompt are set for resume.
	Answer         string `json:"answer,omitempty"`
	ResolvedPrompt string `json:"resolvedPrompt,omitempty"`
	// Directive is set for proceed (and for resume after a decline).
	Directive string `json:"directive,omitempty"`
	// Default, with proceed, is the default of the question the agent
	// asked past the hard cap: use it as the answer.
	Default string `json:"default,omitempty"`
	Job     *Job   `json:"job"`
}

// Report takes a gate-mode agent's outcome and answers with what it must do
// (PROTOCOL.md "Two ways to use it"): ask, wait, resume, proceed, done or
// fail. Each report is recorded as an attempt so usage adds up. An invalid
// plan is EINVALID listing every problem, and the job is unchanged.
func (e *Engine) Report(ctx context.Context, tenant, id string, r Report) (*ReportResult, error) {
	j, err := e.Store.GetJob(ctx, tenantOr(tenant), id)
	if err != nil {
		return nil, err
	}
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
		asked, err := e.asked(ctx, j, q, r.Title)
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
		res.Answer, res.ResolvedPrompt = next.Answer, next.Prompt()
	}
	return res, nil
}

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
// updated since before (PROTOCOL.md rule 13). Each job is claimed with a
// compare-and-set first, so two recovering processes never both run it. It
// returns how many jobs it resumed.
func (e *Engine) Recover(ctx context.Context, before time.Time) (int, error) {
	refs, err := e.Store.StalePlanning(ctx, before, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range refs {
		j, err := e.Store.GetJob(ctx, r.TenantID, r.ID)
		if err != nil {
			continue
		}
		claimed := j.Clone()
		claimed.UpdatedAt = e.now()
		ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventRecovered, At: claimed.UpdatedAt}
		if err := e.Store.UpdateJob(ctx, &Change{Job: claimed, Events: []Event{ev}}); err != nil {
			continue
		}
		if _, err := e.interpret(ctx, claimed, resumption(claimed)); err != nil {
			e.logger().Warn("recover job", "job", j.ID, "err", err)
			continue
		}
		n++
	}
	return n, nil
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

// interpret is the one planning loop: it runs the interpretation, applies
// its outcome through Step, and follows any further interpretation Step
// asks for (an auto-resolved answer, a fallback). Step bounds the chain: a
// job interprets at most initial, answer, fallback.
func (e *Engine) interpret(ctx context.Context, j *Job, it Interpretation) (*Job, error) {
	for {
		in, attempts, err := e.plan(ctx, j, it)
		if err != nil {
			return nil, err
		}
		next, fx, err := e.apply(ctx, j, in, attempts)
		if err != nil {
			var ae *Error
			if errors.As(err, &ae) && ae.Code == ECONFLICT && ae.Job != nil {
				// Cancelled (or recovered elsewhere) while the
				// interpreter ran: the stored state wins.
				return ae.Job, nil
			}
			return nil, err
		}
		if fx.Interpret == nil {
			return next, nil
		}
		j, it = next, *fx.Interpret
	}
}

// plan runs up to MaxAttempts interpreter calls for one interpretation and
// returns the outcome as a Step input, with the final attempt to write
// alongside it. Retried attempts are persisted as they happen.
func (e *Engine) plan(ctx context.Context, j *Job, it Interpretation) (Input, []Attempt, error) {
	var feedback []string
	reason := it.Reason
	for i := 1; ; i++ {
		req := &Request{
			JobID: j.ID, Goal: j.Goal, Prompt: it.Prompt, Profile: j.Profile, Files: j.Files,
			Attempt: i, Reason: reason, Feedback: feedback, Directive: it.Directive, SpecSchema: j.SpecSchema,
		}
		a, out := e.call(ctx, j, req)
		a.N = j.AttemptCount + 1
		switch {
		case a.Outcome == AttemptError:
			return Failed{Message: "interpreter error: " + a.Error}, []Attempt{a}, nil
		case a.Outcome == AttemptPlan:
			return Planned{Plan: out.Plan, Title: out.Title}, []Attempt{a}, nil
		case a.Outcome == AttemptQuestion:
			in, err := e.asked(ctx, j, *out.Question, out.Title)
			return in, []Attempt{a}, err
		case i >= e.maxAttempts():
			return Invalid{Raw: a.Raw, Errors: feedback}, []Attempt{a}, nil
		}
		if err := e.Store.AddAttempt(ctx, j.TenantID, j.ID, a, attemptEvent(j, a)); err != nil {
			return nil, nil, err
		}
		if e.Observer != nil {
			e.Observer.Attempt(j, a)
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
	out, err = ParseOutcome(resp.Raw)
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

// asked builds the Asked input for a question: it sets the expiry and, for
// a job that has not asked yet, looks the question up in the session's
// history (the repeat guard's I/O, kept out of Step).
func (e *Engine) asked(ctx context.Context, j *Job, q Question, title string) (Asked, error) {
	in := Asked{Question: q, Title: title}
	if q.ExpiresAt == nil && e.questionTTL() > 0 {
		t := e.now().Add(e.questionTTL())
		in.Question.ExpiresAt = &t
	}
	if j.ClarificationStatus != ClarificationNone {
		return in, nil
	}
	h, err := e.Store.LookupHistory(ctx, j.TenantID, j.SessionID, QuestionHash(q.Text))
	switch ErrorCode(err) {
	case "":
		in.Stored = h
	case ENOTFOUND:
	default:
		return in, err
	}
	return in, nil
}

// apply runs Step and writes its result with a compare-and-set.
func (e *Engine) apply(ctx context.Context, j *Job, in Input, attempts []Attempt) (*Job, *Effects, error) {
	next, fx, err := Step(j, in, e.now())
	if err != nil {
		return nil, nil, err
	}
	if !fx.Changed() && len(attempts) == 0 {
		return next, fx, nil
	}
	events := make([]Event, 0, len(attempts)+len(fx.Events))
	for _, a := range attempts {
		events = append(events, attemptEvent(j, a))
	}
	events = append(events, fx.Events...)
	c := &Change{Job: next, Attempts: attempts, Events: events, History: fx.History, Dispatch: fx.Dispatch}
	if err := e.Store.UpdateJob(ctx, c); err != nil {
		return nil, nil, err
	}
	if e.Observer != nil {
		for _, a := range attempts {
			e.Observer.Attempt(next, a)
		}
		e.Observer.Transition(next, fx)
	}
	return next, fx, nil
}

func attemptEvent(j *Job, a Attempt) Event {
	ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: EventAttempt, At: a.StartedAt}
	ev.Data, _ = json.Marshal(map[string]any{"n": a.N, "reason": a.Reason, "outcome": a.Outcome, "error": a.Error})
	return ev
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// The cut may split a UTF-8 sequence; drop the broken tail.
	return strings.ToValidUTF8(s[:n], "")
}

func tenantOr(t string) string {
	if t == "" {
		return DefaultTenant
	}
	return t
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Engine) newID() string {
	if e.NewID != nil {
		return e.NewID()
	}
	return uuid.Must(uuid.NewV7()).String()
}

func (e *Engine) maxAttempts() int { return orDefault(e.MaxAttempts, DefaultMaxAttempts) }
func (e *Engine) maxOutput() int   { return orDefault(e.MaxOutput, DefaultMaxOutput) }
func (e *Engine) maxRaw() int      { return orDefault(e.MaxRaw, DefaultMaxRaw) }
func (e *Engine) questionTTL() time.Duration {
	return orDefault(e.QuestionTTL, DefaultQuestionTTL)
}
func (e *Engine) interpretTimeout() time.Duration {
	return orDefault(e.InterpretTimeout, DefaultInterpretTimeout)
}

func (e *Engine) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func orDefault[T int | time.Duration](v, d T) T {
	if v == 0 {
		return d
	}
	return v
}
