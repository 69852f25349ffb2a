package askonce

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func planningJob(mode Mode) *Job {
	return &Job{
		ID: "j1", TenantID: DefaultTenant, SessionID: "s1", Mode: mode,
		Goal: "make hot frozen cheese", HardCap: HardCapFallback, Title: "make hot frozen cheese",
		Status: StatusPlanning, ClarificationStatus: ClarificationNone, Version: 1,
	}
}

func tempQuestion() Question {
	return Question{Type: QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}, Reason: "scope_unclear"}
}

// deleteQuestion confirms a destructive step, defaulting to its safe "no".
func deleteQuestion() Question {
	return Question{Type: QuestionConfirm, Text: "Delete the old recipes?", Options: []string{"yes", "no"}, Reason: "target_file_exists", Default: "no"}
}

func onePlan() *Plan {
	return &Plan{Title: "Hot cheese", Tasks: []Task{{ID: "t1", Title: "make it", Instruction: "make it"}}}
}

// mustStep applies a sequence of inputs, failing the test on any error.
func mustStep(t *testing.T, j *Job, ins ...Input) (*Job, *Effects) {
	t.Helper()
	var fx *Effects
	for _, in := range ins {
		var err error
		j, fx, err = Step(j, in, t0)
		if err != nil {
			t.Fatalf("Step(%T): %v", in, err)
		}
	}
	return j, fx
}

func eventTypes(fx *Effects) []EventType {
	var ts []EventType
	for _, e := range fx.Events {
		ts = append(ts, e.Type)
	}
	return ts
}

// The transition table of docs/protocol.md "States", one case per row.
func TestStateTable(t *testing.T) {
	t.Parallel()
	// A managed job's interpreter may default only a destructive step,
	// to "no" (rule 17).
	withDefault := deleteQuestion()
	expiring := tempQuestion()
	exp := t0.Add(-time.Minute)
	expiring.ExpiresAt = &exp
	expiringDefault := deleteQuestion()
	expiringDefault.ExpiresAt = &exp

	cases := []struct {
		name      string
		job       func() *Job
		in        Input
		status    Status
		clar      ClarificationStatus
		source    Source
		interpret AttemptReason
		dispatch  bool
		events    []EventType
		// conflict: the state does not take the input; Step refuses
		// with ECONFLICT carrying the job as it is.
		conflict bool
	}{
		{
			name: "CreatedInterpreterReturnsPlan_NoneToSkipped_SuccessDispatch",
			job:  func() *Job { return planningJob(ModeManaged) },
			in:   Planned{Plan: onePlan()}, status: StatusSuccess, clar: ClarificationSkipped, dispatch: true,
			events: []EventType{EventPlanned, EventDispatched},
		},
		{
			name:   "CreatedInterpreterAsks_RepeatGuardHasAnswer_NoneToAnsweredHistory",
			job:    func() *Job { return planningJob(ModeManaged) },
			in:     Asked{Question: tempQuestion(), Stored: &HistoryEntry{Answer: "hot"}},
			status: StatusPlanning, clar: ClarificationAnswered, source: SourceHistory, interpret: ReasonClarificationAnswer,
			events: []EventType{EventAutoResolved},
		},
		{
			name: "CreatedInterpreterAsks_GoalAnswersIt_NoneToAnsweredResolver",
			job: func() *Job {
				j := planningJob(ModeManaged)
				j.Goal = "delete the build folder. Yes, I am sure"
				return j
			},
			in:     Asked{Question: Question{Type: QuestionConfirm, Text: "Delete the build folder?", Options: []string{"yes", "no"}}},
			status: StatusPlanning, clar: ClarificationAnswered, source: SourceResolver, interpret: ReasonClarificationAnswer,
			events: []EventType{EventAutoResolved},
		},
		{
			name: "CreatedInterpreterAsks_GatingSaysProceed_NoneToSkipped",
			job: func() *Job {
				j := planningJob(ModeManaged)
				j.Profile, j.Goal = "minecraft-mod", "a hot frozen ore block"
				return j
			},
			in:     Asked{Question: Question{Type: QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}, Cosmetic: true}, Gated: "Block-only mod: not asked"},
			status: StatusPlanning, clar: ClarificationSkipped, interpret: ReasonFallback,
			events: []EventType{EventGated},
		},
		{
			name:   "CreatedInterpreterAsksOtherwise_NoneToAsked_PendingNoDispatch",
			job:    func() *Job { return planningJob(ModeManaged) },
			in:     Asked{Question: tempQuestion()},
			status: StatusPending, clar: ClarificationAsked,
			events: []EventType{EventAsked},
		},
		{
			name:   "AnswerSubmitted_AskedToAnsweredUser",
			job:    func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}); return j },
			in:     Answered{Answer: TextAnswer("hot")},
			status: StatusPlanning, clar: ClarificationAnswered, source: SourceUser, interpret: ReasonClarificationAnswer,
			events: []EventType{EventAnswered},
		},
		{
			name:   "PendingQuestionExpiresWithDefault_AskedToAnsweredTimeout",
			job:    func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: expiringDefault}); return j },
			in:     Expire{},
			status: StatusPlanning, clar: ClarificationAnswered, source: SourceTimeout, interpret: ReasonClarificationAnswer,
			events: []EventType{EventAnswered},
		},
		{
			name:   "PendingQuestionExpiresNoDefault_StaysAsked_Expired",
			job:    func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: expiring}); return j },
			in:     Expire{},
			status: StatusExpired, clar: ClarificationAsked,
			events: []EventType{EventExpired},
		},
		{
			name:   "UserDeclinesWithDefault_AskedToAnsweredDefault",
			job:    func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: withDefault}); return j },
			in:     Decline{},
			status: StatusPlanning, clar: ClarificationAnswered, source: SourceDefault, interpret: ReasonClarificationAnswer,
			events: []EventType{EventAnswered},
		},
		{
			name:   "UserDeclinesNoDefault_AskedToAnsweredDefault_FallbackDirective",
			job:    func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}); return j },
			in:     Decline{},
			status: StatusPlanning, clar: ClarificationAnswered, source: SourceDefault, interpret: ReasonFallback,
			events: []EventType{EventAnswered, EventFallbackApplied},
		},
		{
			name:   "UserCancels_StaysAsked_Cancelled",
			job:    func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}); return j },
			in:     Cancel{},
			status: StatusCancelled, clar: ClarificationAsked,
			events: []EventType{EventCancelled},
		},
		{
			name: "InterpreterAsksAfterAnswer_StaysAnswered_HardCapFallback",
			job: func() *Job {
				j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("hot")})
				return j
			},
			in:     Asked{Question: tempQuestion()},
			status: StatusPlanning, clar: ClarificationAnswered, source: SourceUser, interpret: ReasonFallback,
			events: []EventType{EventFallbackApplied},
		},
		// A managed job's question is the user's until it is answered: an
		// interpreter outcome arriving while it is pending (a stale run, a
		// second process) is refused, not applied.
		{
			name:     "ManagedPendingJobTakesNoPlan_Conflict",
			job:      func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}); return j },
			in:       Planned{Plan: onePlan()},
			conflict: true,
		},
		{
			name:     "ManagedPendingJobTakesNoInvalidOutcome_Conflict",
			job:      func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}); return j },
			in:       Invalid{Raw: "garbage", Errors: []string{"not JSON"}},
			conflict: true,
		},
		{
			name:     "ManagedPendingJobTakesNoFailure_Conflict",
			job:      func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}); return j },
			in:       Failed{Message: "interpreter error: timeout"},
			conflict: true,
		},
		{
			name:     "ManagedPendingJobTakesNoSecondQuestion_Conflict",
			job:      func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}); return j },
			in:       Asked{Question: tempQuestion()},
			conflict: true,
		},
		{
			name:     "GatePendingJobTakesNoInvalidOutcome_Conflict",
			job:      func() *Job { j, _ := mustStep(t, planningJob(ModeGate), Asked{Question: tempQuestion()}); return j },
			in:       Invalid{Raw: "garbage"},
			conflict: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := tc.job()
			snapshot := before.Clone()
			j, fx, err := Step(before, tc.in, t0)
			if tc.conflict {
				checkConflict(t, before, snapshot, j, fx, err)
				return
			}
			if err != nil {
				t.Fatalf("Step: %v", err)
			}
			if j.Status != tc.status || j.ClarificationStatus != tc.clar || j.AnswerSource != tc.source {
				t.Errorf("got status=%s clarification=%s source=%q; want %s %s %q", j.Status, j.ClarificationStatus, j.AnswerSource, tc.status, tc.clar, tc.source)
			}
			if fx.Dispatch != tc.dispatch {
				t.Errorf("dispatch = %v, want %v", fx.Dispatch, tc.dispatch)
			}
			var reason AttemptReason
			if fx.Interpret != nil {
				reason = fx.Interpret.Reason
			}
			if reason != tc.interpret {
				t.Errorf("interpret reason = %q, want %q", reason, tc.interpret)
			}
			if got := eventTypes(fx); !slices.Equal(got, tc.events) {
				t.Errorf("events = %v, want %v", got, tc.events)
			}
			if before.Status != snapshot.Status || before.ClarificationStatus != snapshot.ClarificationStatus || before.Version != snapshot.Version {
				t.Errorf("Step changed its input job")
			}
		})
	}
}

// checkConflict asserts that Step refused: ECONFLICT carrying the job's
// current state, no next state, no effects, and the input job untouched.
func checkConflict(t *testing.T, before, snapshot, next *Job, fx *Effects, err error) {
	t.Helper()
	if ErrorCode(err) != ECONFLICT {
		t.Fatalf("Step: err %v, want conflict", err)
	}
	var e *Error
	if !asError(err, &e) || e.Job == nil || e.Job.Status != snapshot.Status || e.Job.ClarificationStatus != snapshot.ClarificationStatus {
		t.Errorf("conflict does not carry the job's current state: %+v", e)
	}
	if next != nil || fx != nil {
		t.Errorf("refused input returned a state %+v and effects %+v", next, fx)
	}
	if before.Status != snapshot.Status || before.ClarificationStatus != snapshot.ClarificationStatus ||
		before.Result != snapshot.Result || before.Plan != snapshot.Plan || before.Version != snapshot.Version {
		t.Errorf("Step changed its input job")
	}
}

func TestRule2_AtMostOneQuestion_AskOnlyFromNone(t *testing.T) {
	t.Parallel()
	// Managed: once answered, asking never returns to asked.
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("hot")})
	for range 3 {
		next, fx, err := Step(j, Asked{Question: tempQuestion()}, t0)
		if err != nil {
			break
		}
		if next.ClarificationStatus == ClarificationAsked || next.Status == StatusPending || fx.Action == ActionAsk {
			t.Fatalf("asked a second question: %+v", next)
		}
		j = next
	}
	if j.Status != StatusFailed || j.Error != HardCapMessage {
		t.Fatalf("after repeated asks: status %s error %q; want failed with the hard-cap message", j.Status, j.Error)
	}
}

func TestRule2_AnsweringIsOnlyFromAsked(t *testing.T) {
	t.Parallel()
	for _, j := range []*Job{
		planningJob(ModeManaged),
		func() *Job { j, _ := mustStep(t, planningJob(ModeManaged), Planned{Plan: onePlan()}); return j }(),
		func() *Job {
			j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("hot")})
			return j
		}(),
	} {
		_, _, err := Step(j, Answered{Answer: TextAnswer("hot")}, t0)
		if ErrorCode(err) != ECONFLICT {
			t.Errorf("answer on %s/%s: err %v, want conflict", j.Status, j.ClarificationStatus, err)
		}
		var e *Error
		if ok := asError(err, &e); ok && e.Job == nil {
			t.Errorf("conflict does not carry the job's current state")
		}
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

func TestRule3_OnlyCreationCanAsk_HardCapFailPolicy(t *testing.T) {
	t.Parallel()
	j := planningJob(ModeManaged)
	j.HardCap = HardCapFail
	j, _ = mustStep(t, j, Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("hot")})
	j, fx := mustStep(t, j, Asked{Question: tempQuestion()})
	if j.Status != StatusFailed || j.Error != HardCapMessage || fx.Interpret != nil {
		t.Fatalf("fail policy: status %s error %q interpret %v", j.Status, j.Error, fx.Interpret)
	}
	if HardCapMessage != "Clarification did not resolve ambiguity. Please rephrase." {
		t.Fatalf("hard-cap message changed: %q", HardCapMessage)
	}
}

func TestRule3_FallbackPolicyRerunsOnceWithDirectiveThenFails(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("frozen")})
	j, fx := mustStep(t, j, Asked{Question: tempQuestion()})
	if fx.Interpret == nil || fx.Interpret.Directive != FallbackDirective || fx.Interpret.Prompt != j.ResolvedPrompt {
		t.Fatalf("first re-ask: want a fallback run on the resolved prompt with the directive, got %+v", fx.Interpret)
	}
	j, _ = mustStep(t, j, Asked{Question: tempQuestion()})
	if j.Status != StatusFailed || j.Error != HardCapMessage {
		t.Fatalf("second re-ask: status %s error %q", j.Status, j.Error)
	}
	if FallbackDirective != "Previous clarification was already provided. You MUST proceed with available information. Make reasonable assumptions and document them. Do not request further clarification." {
		t.Fatalf("fallback directive changed")
	}
}

func TestRule4_ResolvedPromptIsGoalPlusAnswerSection(t *testing.T) {
	t.Parallel()
	j, fx := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("HOT")})
	want := "make hot frozen cheese\n\nClarification Answer: hot"
	if j.ResolvedPrompt != want || fx.Interpret.Prompt != want {
		t.Fatalf("resolved prompt %q, interpreted %q; want %q", j.ResolvedPrompt, fx.Interpret.Prompt, want)
	}
}

func TestRule5_HumanAnswerIsStoredInHistory(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()})
	_, fx := mustStep(t, j, Answered{Answer: TextAnswer("frozen")})
	h := fx.History
	if h == nil || h.Answer != "frozen" || h.QuestionHash != QuestionHash("hot or frozen") || h.SessionID != "s1" {
		t.Fatalf("history effect %+v", h)
	}
	// Answers not given by a human do not enter the history.
	_, fx = mustStep(t, j, Answered{Answer: TextAnswer("frozen"), Source: SourceTimeout})
	if fx.History != nil {
		t.Fatalf("a timeout answer was stored in the history")
	}
}

func TestRule5_StoredAnswerThatNoLongerFitsIsNotApplied(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion(), Stored: &HistoryEntry{Answer: "lukewarm"}})
	if j.ClarificationStatus != ClarificationAsked {
		t.Fatalf("an answer outside the options was applied: %s", j.ClarificationStatus)
	}
}

func TestRule7_InvalidAnswerIsInvalidAndJobStaysPending(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()})
	next, fx, err := Step(j, Answered{Answer: TextAnswer("banana")}, t0)
	if ErrorCode(err) != EINVALID || next != nil || fx != nil {
		t.Fatalf("got %v %v %v", next, fx, err)
	}
	if !strings.Contains(ErrorMessage(err), "hot, frozen") {
		t.Fatalf("error does not list the allowed values: %q", ErrorMessage(err))
	}
	if j.Status != StatusPending {
		t.Fatalf("job moved: %s", j.Status)
	}
}

func TestRule10_TitleOnEveryJob(t *testing.T) {
	t.Parallel()
	j := planningJob(ModeManaged)
	j.Title = ""
	j, _ = mustStep(t, j, Asked{Question: tempQuestion()})
	if j.Title != "make hot frozen cheese" {
		t.Fatalf("pending job title %q", j.Title)
	}
	j, _ = mustStep(t, j, Answered{Answer: TextAnswer("hot")}, Planned{Plan: onePlan(), Title: "Hot cheese"})
	if j.Title != "Hot cheese" {
		t.Fatalf("interpreter title not kept: %q", j.Title)
	}
}

func TestTerminalJobsRejectEveryInput(t *testing.T) {
	t.Parallel()
	ins := []Input{Planned{Plan: onePlan()}, Asked{Question: tempQuestion()}, Invalid{}, Failed{}, Answered{Answer: TextAnswer("hot")}, Expire{}, Decline{}, Cancel{}}
	for _, s := range []Status{StatusSuccess, StatusValidationError, StatusFailed, StatusCancelled, StatusExpired} {
		j := planningJob(ModeManaged)
		j.Status = s
		for _, in := range ins {
			if _, _, err := Step(j, in, t0); ErrorCode(err) != ECONFLICT {
				t.Errorf("%s + %T: err %v, want conflict", s, in, err)
			}
		}
	}
}

func TestExpireBeforeDueIsConflict(t *testing.T) {
	t.Parallel()
	q := tempQuestion()
	later := t0.Add(time.Hour)
	q.ExpiresAt = &later
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: q})
	if _, _, err := Step(j, Expire{}, t0); ErrorCode(err) != ECONFLICT {
		t.Fatalf("early expiry: %v", err)
	}
}

// Rule 3: the fallback re-run gets the directive and the new question's
// default, if it has one.
func TestRule3_FallbackCarriesTheQuestionsDefault(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("hot")})
	again := deleteQuestion()
	_, fx := mustStep(t, j, Asked{Question: again})
	want := "make hot frozen cheese\n\nClarification Answer: hot\n\nClarification Answer: no"
	if fx.Interpret == nil || fx.Interpret.Prompt != want || fx.Interpret.Directive != FallbackDirective {
		t.Fatalf("fallback run %+v; want prompt %q with the directive", fx.Interpret, want)
	}
	// Gate mode: proceed, with the default to use.
	g, _ := mustStep(t, planningJob(ModeGate), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("hot")}, Asked{Question: tempQuestion()})
	_, fx = mustStep(t, g, Asked{Question: again})
	if fx.Action != ActionProceed || fx.Default != "no" || fx.Directive != FallbackDirective {
		t.Fatalf("gate: action %s default %q", fx.Action, fx.Default)
	}
}

// A question is expired at and after its expiresAt: Step expires it at the
// exact instant and refuses one nanosecond before (Store.DueQuestions uses
// the same boundary).
func TestExpiryBoundary_ExpiredAtExpiresAtNotANanosecondBefore(t *testing.T) {
	t.Parallel()
	q := tempQuestion()
	at := t0.Add(time.Hour)
	q.ExpiresAt = &at
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: q})

	next, fx, err := Step(j, Expire{}, at.Add(-time.Nanosecond))
	checkConflict(t, j, j.Clone(), next, fx, err)

	next, fx, err = Step(j, Expire{}, at)
	if err != nil {
		t.Fatalf("expire at expiresAt: %v", err)
	}
	if next.Status != StatusExpired || !slices.Equal(eventTypes(fx), []EventType{EventExpired}) {
		t.Fatalf("expire at expiresAt: status %s events %v; want expired", next.Status, eventTypes(fx))
	}
}

// Rule 3 after a decline: a declined question without a default spends the
// job's one fallback, so an interpreter that asks in that run fails the
// job with the hard-cap message; no second fallback, no second question.
func TestRule3_DeclineWithoutDefaultMarksTheFallbackUsed(t *testing.T) {
	t.Parallel()
	j, fx := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()}, Decline{})
	if !j.FallbackUsed || fx.Interpret == nil || fx.Interpret.Directive != FallbackDirective {
		t.Fatalf("decline without default: fallbackUsed %v, interpret %+v; want the fallback run", j.FallbackUsed, fx.Interpret)
	}
	j, fx = mustStep(t, j, Asked{Question: Question{Type: QuestionFreeText, Text: "Which shade?"}})
	if j.Status != StatusFailed || j.Error != HardCapMessage || fx.Interpret != nil || fx.Action == ActionAsk {
		t.Fatalf("ask after the declined fallback: status %s error %q interpret %+v action %s; want failed with the hard-cap message",
			j.Status, j.Error, fx.Interpret, fx.Action)
	}
	if n := slices.Index(eventTypes(fx), EventFallbackApplied); n >= 0 {
		t.Fatalf("a second fallback was applied: events %v", eventTypes(fx))
	}
}

// A pending job keeps no result: its question says everything, and the
// interpreter output that asked is in its attempt record.
func TestPendingJobKeepsNoResult(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()})
	if j.Status != StatusPending || j.Result != "" {
		t.Fatalf("pending job: status %s result %q; want pending without a result", j.Status, j.Result)
	}
}

// The effects say, as typed fields, the status the job left and the
// hard-cap outcome (rule 3), so observers need not read event data: the
// fallback run is HardCapFallback, the failure after it HardCapFail, and a
// decline without a default (the user's choice) neither.
func TestRule3_EffectsCarryTheHardCapOutcomeAndThePreviousStatus(t *testing.T) {
	t.Parallel()
	j, fx := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion()})
	if fx.From != StatusPlanning || j.Status != StatusPending || fx.HardCap != "" {
		t.Fatalf("ask: From %q -> %q, HardCap %q", fx.From, j.Status, fx.HardCap)
	}
	j, fx = mustStep(t, j, Answered{Answer: TextAnswer("frozen")})
	if fx.From != StatusPending || j.Status != StatusPlanning || fx.HardCap != "" {
		t.Fatalf("answer: From %q -> %q, HardCap %q", fx.From, j.Status, fx.HardCap)
	}
	j, fx = mustStep(t, j, Asked{Question: tempQuestion()})
	if fx.HardCap != HardCapFallback || fx.From != StatusPlanning {
		t.Fatalf("first re-ask: HardCap %q From %q, want fallback from planning", fx.HardCap, fx.From)
	}
	_, fx = mustStep(t, j, Asked{Question: tempQuestion()})
	if fx.HardCap != HardCapFail {
		t.Fatalf("second re-ask: HardCap %q, want fail", fx.HardCap)
	}
	// A decline without a default applies the fallback directive, but it
	// is not the hard cap.
	q := tempQuestion()
	q.Default = ""
	p, _ := mustStep(t, planningJob(ModeManaged), Asked{Question: q})
	if _, fx = mustStep(t, p, Decline{}); fx.HardCap != "" || !slices.Contains(eventTypes(fx), EventFallbackApplied) {
		t.Fatalf("decline: HardCap %q, events %v", fx.HardCap, eventTypes(fx))
	}
}

// Rule 15: an answer or a decline that arrives at or after the question's
// expiresAt is refused by Step itself, at the instant of the answer, not
// at the next sweep: ECONFLICT carrying the unchanged job. One
// nanosecond before, both are taken.
func TestRule15_AnswerAfterExpiresAtIsRefusedWhenItArrives(t *testing.T) {
	t.Parallel()
	for _, in := range []Input{Answered{Answer: TextAnswer("hot")}, Answered{Answer: TextAnswer("hot"), Source: SourceUser}, Decline{}} {
		for _, mode := range []Mode{ModeManaged, ModeGate} {
			q := tempQuestion()
			at := t0.Add(time.Hour)
			q.ExpiresAt = &at
			j, _ := mustStep(t, planningJob(mode), Asked{Question: q})
			for _, now := range []time.Time{at, at.Add(time.Minute)} {
				next, fx, err := Step(j, in, now)
				checkConflict(t, j, j.Clone(), next, fx, err)
				if err != nil && !strings.Contains(err.Error(), "expired") {
					t.Errorf("%T at %s: %v; want a message that says the question expired", in, now.Sub(at), err)
				}
			}
			if _, _, err := Step(j, in, at.Add(-time.Nanosecond)); err != nil {
				t.Errorf("%T (%s) a nanosecond before expiresAt: %v", in, mode, err)
			}
		}
	}
}

func TestRule5_RememberedProjectAnswerSaysWhichMemoryAndCountsItsUse(t *testing.T) {
	t.Parallel()
	from := &HistoryEntry{Scope: MemoryProject, Project: "shop", QuestionHash: QuestionHash(tempQuestion().Text), Answer: "frozen", JobID: "earlier", At: t0.Add(-time.Hour)}
	j, fx := mustStep(t, planningJob(ModeManaged), Asked{Question: tempQuestion(), Stored: from})
	want := MemoryRef{Scope: MemoryProject, Project: "shop", QuestionHash: from.QuestionHash, JobID: "earlier", At: from.At}
	if j.AnswerSource != SourceHistory || j.AnswerMemory == nil || *j.AnswerMemory != want || fx.Recalled == nil || *fx.Recalled != want {
		t.Fatalf("job memory %+v, recalled %+v; want %+v on both", j.AnswerMemory, fx.Recalled, want)
	}
	if !strings.Contains(string(fx.Events[0].Data), `"jobId":"earlier"`) {
		t.Errorf("auto_resolved data %s does not name the memory", fx.Events[0].Data)
	}
}

func TestRule5_AnswerIsRememberedAtTheJobsScopeUnlessThePersonSaysNot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		memory       *Memory
		dontRemember bool
		scope        MemoryScope
		project      string
		expires      bool
	}{
		{"session job", nil, false, MemorySession, "", false},
		{"project job", &Memory{Scope: MemoryProject, Project: "shop", TTL: "2h"}, false, MemoryProject, "shop", true},
		{"tenant job", &Memory{Scope: MemoryTenant, Project: "shop", TTL: "2h"}, false, MemoryTenant, "", true},
		{"project job, don't remember", &Memory{Scope: MemoryProject, Project: "shop", TTL: "2h"}, true, MemorySession, "", false},
	} {
		j := planningJob(ModeManaged)
		j.Memory = c.memory
		j, _ = mustStep(t, j, Asked{Question: tempQuestion()})
		_, fx, err := Step(j, Answered{Answer: TextAnswer("hot"), DontRemember: c.dontRemember}, t0)
		if err != nil {
			t.Fatal(err)
		}
		h := fx.History
		if h == nil || h.Scope != c.scope || h.Project != c.project || (h.ExpiresAt != nil) != c.expires ||
			(c.expires && !h.ExpiresAt.Equal(t0.Add(2*time.Hour))) {
			t.Errorf("%s: history %+v, want scope %s project %q expiring %v", c.name, h, c.scope, c.project, c.expires)
		}
	}
}

// A question asked with some fields filled: its default, applied when it
// expires, is merged with the filled values too, and only the asked
// fields (as answered, defaults filled) are remembered field by field.
func TestRule5_FilledFieldsMergeIntoTheDefaultAndOnlyTheAskedFieldsAreRemembered(t *testing.T) {
	t.Parallel()
	q := Question{Text: "Before the deploy:", Fields: []QuestionField{
		{Name: "environment", Type: QuestionSelectOne, Text: "Which environment?", Options: []string{"staging", "production"}, Required: true},
		{Name: "replicas", Text: "How many replicas?", Default: "2"},
		{Name: "owner", Text: "Who owns it?", Default: "ops"},
	}}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	j := planningJob(ModeManaged)
	j.Goal = "deploy to staging"
	// The schema chose the fields' defaults, so they answer on expiry
	// (rule 17).
	j.SpecSchema = json.RawMessage(`{"type":"object","properties":{"replicas":{"type":"string","default":"2"},"owner":{"type":"string","default":"ops"}}}`)
	exp := t0.Add(time.Minute)
	q.ExpiresAt = &exp
	asked, fx := mustStep(t, j, Asked{Question: q})
	if asked.Status != StatusPending || len(asked.Question.Fields) != 2 || asked.Question.Filled == nil || fx.Action != ActionAsk {
		t.Fatalf("asked: status %s, question %+v", asked.Status, asked.Question)
	}
	answered, fx := mustStep(t, asked, Answered{Answer: mustJSON(`{"owner":"dev"}`)})
	if string(answered.Answer.JSON()) != `{"environment":"staging","replicas":"2","owner":"dev"}` {
		t.Fatalf("answer %q, want every field in order", answered.Answer)
	}
	var remembered []string
	for _, h := range fx.FieldHistory {
		remembered = append(remembered, h.Question+"="+h.Answer)
	}
	if !slices.Equal(remembered, []string{"How many replicas?=2", "Who owns it?=dev"}) {
		t.Fatalf("remembered %v, want the asked fields only", remembered)
	}
	expired, _, err := Step(asked, Expire{}, exp)
	if err != nil || string(expired.Answer.JSON()) != `{"environment":"staging","replicas":"2","owner":"ops"}` || expired.AnswerSource != SourceTimeout {
		t.Fatalf("expired: %v, answer %q source %s; want the default merged with the filled field", err, expired.Answer, expired.AnswerSource)
	}
}
