package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/email"
)

// ?choice=N (the email channel's option links) shows option N chosen
// instead of the default, and a GET answers nothing.
func testAnswerPageChoiceParameterPreselectsTheOptionAndAnswersNothing(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	j, link := s.ask(t, selectGoal)
	if j.Question.Default != "hot" || j.Question.Options[1] != "frozen" {
		t.Fatalf("question %+v; want default hot and option 1 frozen", j.Question)
	}
	for _, tc := range []struct{ query, checked string }{
		{"?choice=1", "frozen"},
		{"?choice=0", "hot"},
		{"?choice=9", "hot"}, // out of range: the default
		{"?choice=x", "hot"}, // not a number: the default
		{"", "hot"},
	} {
		r := s.get(t, link+tc.query)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d", tc.query, r.status)
		}
		mustContain(t, r, `value="`+tc.checked+`" checked`)
		if n := strings.Count(r.body, " checked"); n != 1 {
			t.Fatalf("GET %s: %d checked inputs; want 1", tc.query, n)
		}
	}
	got, err := s.engine.Get(t.Context(), "", j.ID)
	if err != nil || got.Status != askonce.StatusPending {
		t.Fatalf("after the GETs the job is %v (%v); want still pending", got.Status, err)
	}
}

// In Chromium, an email's option link shows the option chosen and one
// click answers with it, recorded as coming from the email.
func testBrowserEmailOptionLinkAnswersAfterOneClick(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{})
	j, link := s.ask(t, selectGoal)
	if j.Question.Options[1] != "frozen" {
		t.Fatalf("options %v; want frozen second", j.Question.Options)
	}
	browserScript(t, s.srv.URL, "answer_choice", "LINK="+email.ChoiceURL(link, 1))
	got, err := s.engine.Get(t.Context(), "", j.ID)
	if err != nil || got.Answer.String() != "frozen" || got.AnsweredVia != askonce.ViaEmailLink {
		t.Fatalf("job answered %q via %q (%v); want frozen via email-link", got.Answer, got.AnsweredVia, err)
	}
}
