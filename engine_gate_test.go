package askonce

import "testing"

// TestGateMode runs gate mode's cases through Step, one subtest each.
func TestGateMode(t *testing.T) {
	t.Parallel()
	t.Run("AskWaitResumeProceedDone", testGateModeAskWaitResumeProceedDone)
	t.Run("AskingAfterProceedFailsTheJob", testGateModeAskingAfterProceedFailsTheJob)
	t.Run("RepeatGuardResumesAtOnce", testGateModeRepeatGuardResumesAtOnce)
	t.Run("PlanWhilePendingIsDone", testGateModePlanWhilePendingIsDone)
}

// Gate mode through Step: the gate-mode table of docs/protocol.md. The
// engine-level version over a real store is in engine_test.go.
func testGateModeAskWaitResumeProceedDone(t *testing.T) {
	t.Parallel()
	j := planningJob(ModeGate)

	// First clarification request: ask, and the question persists.
	j, fx := mustStep(t, j, Asked{Question: tempQuestion()})
	if fx.Action != ActionAsk || j.Status != StatusPending || j.Question == nil || !j.ClarificationUsed() || j.ClarificationResolved() {
		t.Fatalf("ask: action %s status %s used=%v resolved=%v", fx.Action, j.Status, j.ClarificationUsed(), j.ClarificationResolved())
	}

	// The agent asks again while the user has not answered: wait,
	// with the stored question, and nothing changes.
	waited, fx := mustStep(t, j, Asked{Question: Question{Type: QuestionFreeText, Text: "another question"}})
	if fx.Action != ActionWait || fx.Changed() || waited.Question.Text != "Hot or frozen?" {
		t.Fatalf("wait: action %s changed=%v question %q", fx.Action, fx.Changed(), waited.Question.Text)
	}

	// The user answers: in gate mode askonce does not interpret.
	j, fx = mustStep(t, j, Answered{Answer: TextAnswer("frozen")})
	if fx.Interpret != nil || j.Status != StatusPlanning || !j.ClarificationResolved() {
		t.Fatalf("answer: interpret %v status %s", fx.Interpret, j.Status)
	}

	// The agent reports again: resume with the answer, once.
	j, fx = mustStep(t, j, Asked{Question: tempQuestion()})
	if fx.Action != ActionResume || !j.AnswerDelivered || j.ResolvedPrompt != "make hot frozen cheese\n\nClarification Answer: frozen" {
		t.Fatalf("resume: action %s delivered=%v prompt %q", fx.Action, j.AnswerDelivered, j.ResolvedPrompt)
	}

	// Asking after the answer was delivered: proceed with the
	// fallback directive, never a second question.
	j, fx = mustStep(t, j, Asked{Question: tempQuestion()})
	if fx.Action != ActionProceed || fx.Directive != FallbackDirective || j.Status != StatusPlanning {
		t.Fatalf("proceed: action %s directive %q status %s", fx.Action, fx.Directive, j.Status)
	}

	// A plan from any open state: done.
	j, fx = mustStep(t, j, Planned{Plan: onePlan()})
	if fx.Action != ActionDone || j.Status != StatusSuccess || !fx.Dispatch {
		t.Fatalf("plan: action %s status %s", fx.Action, j.Status)
	}
}

func testGateModeAskingAfterProceedFailsTheJob(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeGate), Asked{Question: tempQuestion()}, Answered{Answer: TextAnswer("hot")}, Asked{Question: tempQuestion()}, Asked{Question: tempQuestion()})
	j, fx := mustStep(t, j, Asked{Question: tempQuestion()})
	if fx.Action != ActionFail || j.Status != StatusFailed || j.Error != HardCapMessage {
		t.Fatalf("action %s status %s error %q", fx.Action, j.Status, j.Error)
	}
}

func testGateModeRepeatGuardResumesAtOnce(t *testing.T) {
	t.Parallel()
	j, fx := mustStep(t, planningJob(ModeGate), Asked{Question: tempQuestion(), Stored: &HistoryEntry{Answer: "hot"}})
	if fx.Action != ActionResume || j.AnswerSource != SourceHistory || !j.AnswerDelivered || j.Status != StatusPlanning {
		t.Fatalf("action %s source %s delivered=%v", fx.Action, j.AnswerSource, j.AnswerDelivered)
	}
}

func testGateModePlanWhilePendingIsDone(t *testing.T) {
	t.Parallel()
	j, _ := mustStep(t, planningJob(ModeGate), Asked{Question: tempQuestion()})
	j, fx := mustStep(t, j, Planned{Plan: onePlan()})
	if fx.Action != ActionDone || j.Status != StatusSuccess || j.ClarificationStatus != ClarificationAsked {
		t.Fatalf("action %s status %s clarification %s", fx.Action, j.Status, j.ClarificationStatus)
	}
}
