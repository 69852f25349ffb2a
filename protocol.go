package askonce

import (
	"time"
)

// Input is one thing that happens to a job. Step decides what it does.
type Input interface{ verb() string }

// Planned: the interpreter (or, in gate mode, the agent) produced a valid
// plan.
type Planned struct {
	Plan  *Plan
	Title string
}

// Asked: the interpreter (or agent) requests clarification. Stored is the
// session's answer to the same question, which the caller looks up in the
// repeat guard's history before calling Step (nil when there is none). Raw
// is the interpreter output that asked; a job that goes pending keeps it
// in Result.
type Asked struct {
	Question Question
	Title    string
	Stored   *HistoryEntry
	// StoredFields are the remembered answers to the fields of a
	// question with fields, by field name, each looked up on its own by
	// its field's text (a field with none is absent).
	StoredFields map[string]*HistoryEntry
	// Gated is the assumption of a gating policy that lets the job
	// proceed instead of asking (docs/protocol.md rule 8); empty asks.
	// The interpreter output that asked is in its attempt record; a
	// pending job keeps no Result, its question says everything.
	Gated string
}

// Invalid: every attempt of the interpretation produced output that failed
// parsing or validation. Raw is the last output (capped).
type Invalid struct {
	Raw    string
	Errors []string
}

// Failed: the interpreter call itself failed, or the gate agent gave up.
type Failed struct{ Message string }

// Answered: an answer to the pending question. Source is SourceUser unless
// the caller says otherwise.
type Answered struct {
	Answer Answer
	Source Source
	// By is who answered, recorded on the job (AnsweredVia, AnsweredBy).
	By Answerer
	// DontRemember keeps a person's answer out of the project and tenant
	// memory; the session's repeat guard still has it.
	DontRemember bool
}

// Expire: the expiry sweeper found the question overdue
// (Question.Overdue). An answer or a decline that arrives once the
// question is overdue is ECONFLICT, even before the sweep expired the job:
// expiry is decided when the answer arrives. A question is
// overdue at and after its ExpiresAt, the same boundary as
// Store.DueQuestions ("expired at or before now"); before it, Expire is
// ECONFLICT.
type Expire struct{}

// Decline: the user declined to answer (MCP decline). By is who, as
// for Answered.
type Decline struct{ By Answerer }

// Cancel: the user cancelled the job.
type Cancel struct{}

func (Planned) verb() string  { return "plan" }
func (Asked) verb() string    { return "ask on" }
func (Invalid) verb() string  { return "invalidate" }
func (Failed) verb() string   { return "fail" }
func (Answered) verb() string { return "answer" }
func (Expire) verb() string   { return "expire" }
func (Decline) verb() string  { return "decline" }
func (Cancel) verb() string   { return "cancel" }

// Action is what gate mode tells the reporting agent to do (the gate-mode
// table of docs/protocol.md).
type Action string

const (
	ActionAsk     Action = "ask"     // the question is now the user's; wait for the answer
	ActionWait    Action = "wait"    // the question is still unanswered
	ActionResume  Action = "resume"  // continue with Answer and ResolvedPrompt
	ActionProceed Action = "proceed" // continue with Directive; do not ask again
	ActionDone    Action = "done"    // the plan was accepted
	ActionFail    Action = "fail"    // the job failed; stop
)

// Interpretation is a request to run the planning loop.
type Interpretation struct {
	Prompt    string
	Reason    AttemptReason
	Directive string

	// newSession: the job's session was minted for it when it was
	// created, so no history holds an answer for it yet (the repeat
	// guard need not look).
	newSession bool
}

// Effects is what a transition asks its caller to do. Step itself does no
// I/O; the engine carries these out, the store writes them atomically.
type Effects struct {
	// Events to append with the new state. No events means no change.
	Events []Event
	// Interpret, when set, asks for another run of the planning loop.
	Interpret *Interpretation
	// Dispatch queues the builder, in the same transaction as success.
	Dispatch bool
	// History stores a human answer in the session's repeat guard and,
	// for a job of a wider memory scope, in that scope's memory.
	History *HistoryEntry
	// FieldHistory stores the value of each field of a person's answer
	// to a question with fields on its own, as History does the whole.
	FieldHistory []HistoryEntry
	// Recalled is the remembered answer that resolved the question, so
	// that the store counts its use.
	Recalled *MemoryRef
	// Action and Directive are gate mode's answer to the agent.
	Action    Action
	Directive string
	// Default is the default of a question asked past the hard cap, which
	// the fallback run takes as its answer.
	Default string
	// From is the job's status before the transition; the job's Status
	// after it is the status entered. Observers read it instead of
	// inferring statuses from event types.
	From Status
	// HardCap is the hard-cap outcome this transition applied (rule 3 of
	// docs/protocol.md): HardCapFallback when the fallback run was granted,
	// HardCapFail when the job failed with HardCapMessage, empty otherwise.
	HardCap HardCap
	// AskedAt, on a transition out of pending, is when the job asked
	// (the pending job's UpdatedAt): observers time the wait with it.
	AskedAt time.Time
}

// Changed reports whether the transition changed the job.
func (fx *Effects) Changed() bool { return len(fx.Events) > 0 }

// Step is the protocol of docs/protocol.md as a pure function: given a job and an
// input it returns the job's next state and the effects to carry out. It
// never changes cur. An input the state does not allow is ECONFLICT; an
// invalid answer is EINVALID and leaves the job as it was.
//
// The properties that make askonce safe hold here, where they can be tested
// exhaustively: a job asks at most once, clarification_status never moves
// backwards, only a job that has not asked can ask, and success (and so
// dispatch) happens at most once.
func Step(cur *Job, in Input, now time.Time) (*Job, *Effects, error) {
	if cur.Status.Terminal() {
		return nil, nil, conflict(cur, in.verb())
	}
	j := cur.Clone()
	fx := &Effects{From: cur.Status}
	if cur.Status == StatusPending {
		fx.AskedAt = cur.UpdatedAt
	}
	gate := j.Mode == ModeGate
	// Managed jobs take interpreter outcomes only while planning; a gate
	// agent may report while its question is pending too.
	outcomeAllowed := j.Status == StatusPlanning || (gate && j.Status == StatusPending)
	pending := j.Status == StatusPending && j.ClarificationStatus == ClarificationAsked

	switch in := in.(type) {
	case Planned:
		if !outcomeAllowed || in.Plan == nil {
			return nil, nil, conflict(cur, in.verb())
		}
		if j.ClarificationStatus == ClarificationNone {
			j.ClarificationStatus = ClarificationSkipped
		}
		p := in.Plan.Clone()
		j.Plan = &p
		setTitle(j, in.Title)
		j.Status = StatusSuccess
		j.Dispatch = DispatchQueued
		fx.Dispatch = true
		fx.Action = ActionDone
		fx.add(j, now, EventPlanned, plannedData{Assumptions: p.Assumptions, Tasks: len(p.Tasks)})
		fx.add(j, now, EventDispatched, nil)

	case Asked:
		if !outcomeAllowed {
			return nil, nil, conflict(cur, in.verb())
		}
		setTitle(j, in.Title)
		switch j.ClarificationStatus {
		case ClarificationNone:
			ask(j, fx, in, now)
		case ClarificationAsked:
			// Wait: the agent asks while its question is unanswered.
			fx.Action = ActionWait
			return cur.Clone(), fx, nil
		case ClarificationAnswered:
			if gate && !j.AnswerDelivered {
				// Resume: the user answered; hand the answer over once.
				j.AnswerDelivered = true
				fx.Action = ActionResume
				if j.FallbackUsed {
					fx.Directive = FallbackDirective
				}
				fx.add(j, now, EventResumed, resumedData{Answer: j.Answer.String()})
				break
			}
			hardCap(j, fx, now, &in.Question)
		case ClarificationSkipped:
			hardCap(j, fx, now, &in.Question)
		}

	case Invalid:
		if j.Status != StatusPlanning || gate {
			return nil, nil, conflict(cur, in.verb())
		}
		j.Status = StatusValidationError
		j.Result = in.Raw
		j.Error = "interpreter output failed validation on every attempt"
		fx.add(j, now, EventValidationFailed, validationFailedData{Errors: in.Errors})

	case Failed:
		if !outcomeAllowed {
			return nil, nil, conflict(cur, in.verb())
		}
		fail(j, fx, now, in.Message)

	case Answered:
		if !pending {
			return nil, nil, conflict(cur, in.verb())
		}
		if j.Question.Overdue(now) {
			return nil, nil, expired(cur, in.verb())
		}
		a, err := ValidateAnswer(j.Question, in.Answer)
		if err != nil {
			return nil, nil, err
		}
		src := in.Source
		if src == "" {
			src = SourceUser
		}
		j.AnsweredVia, j.AnsweredBy = capString(in.By.Via, maxAnswerer), capString(in.By.By, maxAnswerer)
		answer(j, fx, a, src, now, EventAnswered)
		if src == SourceUser {
			fx.History = remember(j, a, in.DontRemember, now)
			fx.FieldHistory = rememberFields(j, a, fx.History)
		}

	case Expire:
		if !pending || !j.Question.Overdue(now) {
			return nil, nil, conflict(cur, in.verb())
		}
		if d, ok := chosenDefault(j, j.Question); ok {
			answer(j, fx, d, SourceTimeout, now, EventAnswered)
			break
		}
		j.Status = StatusExpired
		j.Error = "the question expired without an answer"
		fx.Action = ActionFail
		fx.add(j, now, EventExpired, expiredData{Note: j.ExpiryNote()})

	case Decline:
		if !pending {
			return nil, nil, conflict(cur, in.verb())
		}
		if j.Question.Overdue(now) {
			return nil, nil, expired(cur, in.verb())
		}
		j.AnsweredVia, j.AnsweredBy = capString(in.By.Via, maxAnswerer), capString(in.By.By, maxAnswerer)
		if d, ok := chosenDefault(j, j.Question); ok {
			answer(j, fx, d, SourceDefault, now, EventAnswered)
			break
		}
		// No default: proceed on the goal alone, under the directive.
		j.ClarificationStatus = ClarificationAnswered
		j.AnswerSource = SourceDefault
		at := now // its own variable: &now would move now to the heap on every Step
		j.AnsweredAt = &at
		j.Status = StatusPlanning
		j.FallbackUsed = true
		fx.add(j, now, EventAnswered, declinedData{Declined: true, Source: SourceDefault, Via: j.AnsweredVia, By: j.AnsweredBy})
		fx.add(j, now, EventFallbackApplied, nil)
		if !gate {
			fx.Interpret = &Interpretation{Prompt: j.Goal, Reason: ReasonFallback, Directive: FallbackDirective}
		}

	case Cancel:
		if j.Status != StatusPlanning && j.Status != StatusPending {
			return nil, nil, conflict(cur, in.verb())
		}
		j.Status = StatusCancelled
		fx.Action = ActionFail
		fx.add(j, now, EventCancelled, nil)
	}
	j.UpdatedAt = now
	return j, fx, nil
}

// ask handles a request for clarification on a job that has not asked: the
// repeat guard, then the resolver, then gating, and only then a human. A
// managed job's question keeps only a default someone chose (rule 17).
func ask(j *Job, fx *Effects, in Asked, now time.Time) {
	q := in.Question.Clone()
	if j.Mode != ModeGate {
		dropUnchosenDefault(&q)
	}
	j.Question = &q
	if s := in.Stored; s != nil {
		if a, err := ValidateAnswer(&q, TextAnswer(s.Answer)); err == nil {
			j.AnswerMemory = s.Ref()
			if j.AnswerMemory.Scope != MemorySession {
				fx.Recalled = j.AnswerMemory
			}
			answer(j, fx, a, SourceHistory, now, EventAutoResolved)
			return
		}
	}
	if r, ok := Resolve(j.Goal, &q); ok {
		if a, err := ValidateAnswer(&q, TextAnswer(r)); err == nil {
			answer(j, fx, a, SourceResolver, now, EventAutoResolved)
			return
		}
	}
	fl := fillFields(j.Goal, &q, in.StoredFields)
	if len(fl.values) > 0 && len(fl.values) == len(q.Fields) {
		// Every field was answered before: nobody is asked.
		if a, err := validateFields(&q, fl.answer(&q)); err == nil {
			if fl.ref != nil {
				j.AnswerMemory = fl.ref
				if fl.ref.Scope != MemorySession {
					fx.Recalled = fl.ref
				}
			}
			answer(j, fx, a, fl.source(), now, EventAutoResolved)
			return
		}
	}
	if assumption := in.Gated; assumption != "" {
		// Not asked, so no question is kept on the job (it is set when
		// askonce asks); the attempt record and the gated event keep
		// what the interpreter proposed.
		j.Question = nil
		j.ClarificationStatus = ClarificationSkipped
		fx.add(j, now, EventGated, gatedData{Assumption: assumption, Question: q.Text})
		if j.Mode == ModeGate {
			fx.Action = ActionProceed
			fx.Directive = GatingDirective
		} else {
			fx.Interpret = &Interpretation{Prompt: j.Goal, Reason: ReasonFallback, Directive: GatingDirective}
		}
		return
	}
	var filledData map[string]filledValue
	if len(fl.values) > 0 && len(fl.values) < len(q.Fields) {
		// Some fields were answered before: the person is asked the
		// rest, and the answer merges both.
		q = fl.rest(&q)
		j.Question = &q
		if fl.ref != nil && fl.ref.Scope != MemorySession {
			fx.Recalled = fl.ref
		}
		filledData = make(map[string]filledValue, len(fl.values))
		for name, v := range fl.values {
			filledData[name] = filledValue{Value: v.String(), Source: fl.sources[name]}
		}
	}
	j.ClarificationStatus = ClarificationAsked
	j.Status = StatusPending
	fx.Action = ActionAsk
	fx.add(j, now, EventAsked, askedData{Options: q.Options, Question: q.Text, Type: q.Type, Fields: q.Fields, Filled: filledData})
}

// remember returns the history entry of a person's answer a to j's
// question: kept in the session and, unless dontRemember, in the job's
// project or tenant memory until its TTL ends.
func remember(j *Job, a Answer, dontRemember bool, now time.Time) *HistoryEntry {
	h := &HistoryEntry{
		TenantID:     j.TenantID,
		SessionID:    j.SessionID,
		Scope:        MemorySession,
		QuestionHash: QuestionHash(j.Question.Text),
		Type:         j.Question.Type,
		Question:     j.Question.Text,
		Answer:       a.Prompt(),
		JobID:        j.ID,
		At:           now,
	}
	if m := j.Memory; m != nil && m.Scope != MemorySession && !dontRemember {
		h.Scope = m.Scope
		h.Project = m.Project
		if m.Scope == MemoryTenant {
			h.Project = ""
		}
		t := now.Add(m.Duration())
		h.ExpiresAt = &t
	}
	return h
}

// rememberFields returns the history entries of each field's value in a
// person's answer a to j's question with fields, under each of the
// field's keys, kept where whole is (nil for a question without fields).
func rememberFields(j *Job, a Answer, whole *HistoryEntry) []HistoryEntry {
	if len(j.Question.Fields) == 0 {
		return nil
	}
	var hs []HistoryEntry
	for _, f := range j.Question.Fields {
		v, ok := a.Field(f.Name)
		if !ok {
			continue
		}
		for _, k := range f.keys() {
			h := *whole
			h.QuestionHash, h.Type, h.Question, h.Answer = QuestionHash(k), f.Type, k, v.String()
			hs = append(hs, h)
		}
	}
	return hs
}

// answer moves an asked (or, for auto-resolution, not yet asked) job to
// answered and asks for the resolved prompt to be interpreted.
func answer(j *Job, fx *Effects, a Answer, src Source, now time.Time, ev EventType) {
	if f := j.Question.Filled; f != nil {
		a = f.whole(j.Question, a)
	}
	j.ClarificationStatus = ClarificationAnswered
	j.Answer = a
	j.AnswerSource = src
	j.AnsweredAt = &now
	j.ResolvedPrompt = ResolvedPrompt(j.Goal, a.Prompt())
	j.Status = StatusPlanning
	fx.add(j, now, ev, answeredData{Answer: a.String(), Memory: j.AnswerMemory, Question: j.Question.Text, Source: src, Via: j.AnsweredVia, By: j.AnsweredBy, Note: j.ExpiryNote()})
	switch {
	case j.Mode != ModeGate:
		fx.Interpret = &Interpretation{Prompt: j.ResolvedPrompt, Reason: ReasonClarificationAnswer}
	case ev == EventAutoResolved:
		// The reporting agent gets the answer in this very response.
		j.AnswerDelivered = true
		fx.Action = ActionResume
	}
}

// hardCap applies the job's policy to an interpreter that asks after the
// job's one clarification (docs/protocol.md rule 3). Under fallback the one
// re-run gets the directive and, when the new question q has a default
// (a managed job's only if someone chose it, rule 17), that default as
// the last answer section of the prompt; the question
// itself is never shown to anyone.
func hardCap(j *Job, fx *Effects, now time.Time, q *Question) {
	if j.HardCap == HardCapFail || j.FallbackUsed {
		fail(j, fx, now, HardCapMessage)
		fx.HardCap = HardCapFail
		return
	}
	if j.Mode != ModeGate {
		c := q.Clone()
		dropUnchosenDefault(&c)
		q = &c
	}
	j.FallbackUsed = true
	fx.HardCap = HardCapFallback
	d, hasDefault := chosenDefault(j, q)
	fx.add(j, now, EventFallbackApplied, fallbackData{Default: d.String(), Directive: FallbackDirective, Question: q.Text})
	fx.Default = d.String()
	if j.Mode == ModeGate {
		fx.Action = ActionProceed
		fx.Directive = FallbackDirective
		return
	}
	prompt := j.Prompt()
	if hasDefault {
		prompt = ResolvedPrompt(prompt, d.Prompt())
	}
	fx.Interpret = &Interpretation{Prompt: prompt, Reason: ReasonFallback, Directive: FallbackDirective}
}

func fail(j *Job, fx *Effects, now time.Time, msg string) {
	j.Status = StatusFailed
	j.Error = msg
	fx.Action = ActionFail
	fx.add(j, now, EventFailed, failedData{Error: msg})
}

// setTitle keeps the interpreter's title when it gives one; every job has a
// title from creation on (derived from the goal).
func setTitle(j *Job, title string) {
	if t := ClampTitle(title); t != "" {
		j.Title = t
	}
	if j.Title == "" {
		j.Title = DeriveTitle(j.Goal)
	}
}

// add appends an event of type t with data (one of the types of
// eventdata.go; nil for none).
func (fx *Effects) add(j *Job, now time.Time, t EventType, data any) {
	ev := Event{TenantID: j.TenantID, JobID: j.ID, Type: t, At: now}
	if data != nil {
		ev.Data = eventData(data)
	}
	fx.Events = append(fx.Events, ev)
}
