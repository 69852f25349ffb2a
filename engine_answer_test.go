package askonce_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// askOther is a SELECT_ONE question that allows answers of the user's own.
const askOther = `{"question":{"type":"SELECT_ONE","text":"Hot or frozen?","options":["hot","frozen"],"allowOther":true,"reason":"scope_unclear"}}`

// Rule 7 and rule 4: an answer outside the options of an allowOther
// question is stored as the user's answer, kept in the session's history,
// and reaches the interpreter as the Clarification Answer section.
func TestRule7_OtherAnswerIsStoredAndBecomesTheClarificationAnswer(t *testing.T) {
	t.Parallel()
	s := scripted(reply(askOther, u1), reply(planRaw, u1))
	e := newEngine(t, s)
	j := create(t, e, "hot frozen cheese")
	if j.Status != askonce.StatusPending || j.Question == nil || !j.Question.AllowOther {
		t.Fatalf("create: status %s question %+v", j.Status, j.Question)
	}
	j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("  banana  ")})
	if err != nil {
		t.Fatalf("answer outside the options: %v", err)
	}
	const prompt = "hot frozen cheese\n\nClarification Answer: banana"
	if j.Status != askonce.StatusSuccess || j.Answer.String() != "banana" || j.AnswerSource != askonce.SourceUser || j.ResolvedPrompt != prompt {
		t.Fatalf("job: status %s answer %q source %s prompt %q", j.Status, j.Answer, j.AnswerSource, j.ResolvedPrompt)
	}
	reqs := s.requests()
	if len(reqs) != 2 || reqs[1].Prompt != prompt || reqs[1].Reason != askonce.ReasonClarificationAnswer {
		t.Fatalf("interpreter requests %+v", reqs)
	}
	stored, err := e.Get(ctx, "", j.ID)
	if err != nil || stored.Answer.String() != "banana" || stored.ResolvedPrompt != prompt || !stored.Question.AllowOther {
		t.Fatalf("stored job %+v, %v", stored, err)
	}
	h, err := e.History(ctx, "", "s1")
	if err != nil || len(h) != 1 || h[0].Answer != "banana" {
		t.Fatalf("history %+v, %v", h, err)
	}
}

// An answer to an allowOther question that names an option is that
// option, as the option is written.
func TestRule7_OptionAnswerToAllowOtherQuestionIsTheOption(t *testing.T) {
	t.Parallel()
	s := scripted(reply(askOther, u1), reply(planRaw, u1))
	e := newEngine(t, s)
	j := create(t, e, "hot frozen cheese")
	j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("FRO")})
	if err != nil || j.Answer.String() != "frozen" {
		t.Fatalf("answer %q, %v; want the option frozen", j.Answer, err)
	}
}

// An answer of one's own that is blank or over 4 KiB is 422 and changes
// nothing; the message says other text is allowed.
func TestRule7_InvalidOtherAnswerIs422AndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEngine(t, scripted(reply(askOther, u1)))
	j := create(t, e, "hot frozen cheese")
	for _, bad := range []string{"", " \t ", "\u200b", strings.Repeat("b", askonce.MaxFreeText+1)} {
		_, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(bad)})
		var ae *askonce.Error
		if !asError(err, &ae) || ae.Code != askonce.EINVALID || !strings.Contains(ae.Message, "other text of your own") || !slices.Equal(ae.Allowed, []string{"hot", "frozen"}) {
			t.Fatalf("answer %.20q: %v", bad, err)
		}
	}
	after, err := e.Get(ctx, "", j.ID)
	if err != nil || after.Version != j.Version || after.Status != askonce.StatusPending {
		t.Fatalf("job changed: %+v, %v", after, err)
	}
}

// Rule 3 with an answer of one's own that settles nothing: the interpreter
// decides, and when it still asks the hard cap applies exactly as for an
// option ("banana" for hot frozen cheese).
func TestRule3_OtherAnswerThatSettlesNothingHitsTheHardCap(t *testing.T) {
	t.Parallel()
	type replies = []func(*askonce.Request) (*askonce.Response, error)
	withAssumption := `{"plan":{"tasks":[{"id":"a","title":"Make cheese"}],"assumptions":["banana is not a temperature; assumed hot"]}}`
	for _, tc := range []struct {
		name    string
		hardCap askonce.HardCap
		replies replies
		status  askonce.Status
	}{
		{"FailEndsFailed", askonce.HardCapFail, replies{reply(askOther, u1), reply(askOther, u1)}, askonce.StatusFailed},
		{"FallbackPlansWithTheAssumption", askonce.HardCapFallback, replies{reply(askOther, u1), reply(askOther, u1), reply(withAssumption, u1)}, askonce.StatusSuccess},
		{"FallbackStillAskingEndsFailed", askonce.HardCapFallback, replies{reply(askOther, u1), reply(askOther, u1), reply(askOther, u1)}, askonce.StatusFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEngine(t, scripted(tc.replies...))
			j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", HardCap: tc.hardCap})
			if err != nil {
				t.Fatal(err)
			}
			j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("banana")})
			if err != nil {
				t.Fatalf("answer banana: %v", err)
			}
			if j.Status != tc.status || j.Answer.String() != "banana" {
				t.Fatalf("status %s answer %q, want %s", j.Status, j.Answer, tc.status)
			}
			switch j.Status {
			case askonce.StatusFailed:
				if j.Error != askonce.HardCapMessage {
					t.Fatalf("error %q", j.Error)
				}
			case askonce.StatusSuccess:
				if !j.FallbackUsed || j.Plan == nil || !slices.Contains(j.Plan.Assumptions, "banana is not a temperature; assumed hot") {
					t.Fatalf("fallback %v plan %+v", j.FallbackUsed, j.Plan)
				}
			}
			if n := count(eventTypes(t, e, j), askonce.EventAsked); n != 1 {
				t.Fatalf("%d asked events, want 1", n)
			}
		})
	}
}
