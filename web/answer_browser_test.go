package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// slowAnswers is the rules interpreter taking a moment over the answered
// prompt, so that the outcome page shows "Planning…" before the plan.
func slowAnswers(t *testing.T) askonce.Interpreter {
	t.Helper()
	r, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return askonce.InterpreterFunc(func(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
		if req.Reason == askonce.ReasonClarificationAnswer {
			select {
			case <-time.After(3 * time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return r.Interpret(ctx, req)
	})
}

func testBrowserAnswerEachQuestionTypeAndSeeThePlanLive(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{interp: slowAnswers(t)})
	_, sel := s.ask(t, selectGoal)
	_, conf := s.ask(t, confirmGoal)
	_, file := s.ask(t, targetGoal, targetFiles...)
	_, free := s.ask(t, freeGoal)
	_, nojs := s.ask(t, targetGoal, targetFiles...)
	browserScript(t, s.srv.URL, "answer_types",
		"LINK_SELECT="+sel, "LINK_CONFIRM="+conf, "LINK_TARGET="+file, "LINK_FREE="+free, "LINK_NOJS="+nojs)
}

func testBrowserInvalidAnswerShowsTheAllowedValuesAndTheUsedLinkIsGone(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{})
	_, link := s.ask(t, targetGoal, targetFiles...)
	browserScript(t, s.srv.URL, "answer_invalid", "LINK="+link)
}

func testBrowserHostileTextRendersInert(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	q := askonce.Question{Type: askonce.QuestionSelectOne, Text: hostile, Options: []string{`<script>alert(2)</script>`, hostile}}
	plan := askonce.Plan{Tasks: []askonce.Task{{ID: "a", Title: hostile, Instruction: `"><svg onload=alert(3)>`, DependsOn: []string{}}}}
	s := newLinkSite(t, linkOptions{interp: script(q, plan, "")})
	_, link := s.ask(t, "make a page titled "+hostile[:4])
	browserScript(t, s.srv.URL, "answer_hostile", "LINK="+link)
}

func testBrowserKeyboardOnlyAnswering(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{})
	_, sel := s.ask(t, selectGoal)
	_, conf := s.ask(t, confirmGoal)
	_, free := s.ask(t, freeGoal)
	browserScript(t, s.srv.URL, "answer_keyboard", "LINK_SELECT="+sel, "LINK_CONFIRM="+conf, "LINK_FREE="+free)
}

func testBrowserAnswerPageLayoutAtDesktopAndPhoneWidths(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{})
	_, sel := s.ask(t, selectGoal)
	_, conf := s.ask(t, confirmGoal)
	_, file := s.ask(t, targetGoal, targetFiles...)
	_, free := s.ask(t, freeGoal)
	browserScript(t, s.srv.URL, "answer_layout",
		"LINK_SELECT="+sel, "LINK_CONFIRM="+conf, "LINK_TARGET="+file, "LINK_FREE="+free)
}

func testBrowserQuestionWithFieldsIsOneForm(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{interp: script(fieldsQuestion, fieldsPlan, "")})
	_, link := s.ask(t, "deploy the shop")
	browserScript(t, s.srv.URL, "answer_fields", "LINK="+link)
}

// typedQuestion asks a bounded whole number, 1 to 2 of three regions (two
// differing only in case, with titles), a date and an email address.
var typedQuestion = askonce.Question{Text: "Before the deploy:", Fields: []askonce.QuestionField{
	{Name: "replicas", Type: askonce.QuestionNumber, Text: "How many replicas?", Required: true, Constraints: askonce.Constraints{Integer: true, Minimum: ptr(1), Maximum: ptr(10)}},
	{Name: "regions", Type: askonce.QuestionSelectMany, Text: "Which regions?", Options: []string{"eu", "EU", "us"}, Required: true,
		Constraints: askonce.Constraints{OptionTitles: []string{"Europe", "Europe (legacy)"}, MinItems: 1, MaxItems: 2}},
	{Name: "day", Type: askonce.QuestionFreeText, Text: "Which day?", Constraints: askonce.Constraints{Format: askonce.FormatDate}},
	{Name: "owner", Type: askonce.QuestionFreeText, Text: "Who owns it?", Constraints: askonce.Constraints{Format: askonce.FormatEmail}},
}}

func ptr(f float64) *float64 { return &f }

func testBrowserTypedFieldsHaveTheirInputsAndErrorsKeepTheInput(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{interp: script(typedQuestion, fieldsPlan, "")})
	_, link := s.ask(t, "deploy the shop")
	browserScript(t, s.srv.URL, "answer_typed", "LINK="+link)
}
