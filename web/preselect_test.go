package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/email"
)

// ?choice=N (the email channel's option links) shows option N chosen; a
// question without a default (rule 17: the rules interpreter gives none
// here) shows none chosen otherwise; and a GET answers nothing.
func testAnswerPageChoiceParameterPreselectsTheOptionAndAnswersNothing(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	j, link := s.ask(t, selectGoal)
	if j.Question.Default != "" || j.Question.Options[1] != "frozen" {
		t.Fatalf("question %+v; want no default and option 1 frozen", j.Question)
	}
	for _, tc := range []struct{ query, checked string }{
		{"?choice=1", "frozen"},
		{"?choice=0", "hot"},
		{"?choice=9", ""}, // out of range: none
		{"?choice=x", ""}, // not a number: none
		{"", ""},
	} {
		r := s.get(t, link+tc.query)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d", tc.query, r.status)
		}
		want := 0
		if tc.checked != "" {
			mustContain(t, r, `value="`+tc.checked+`" checked`)
			want = 1
		}
		if n := strings.Count(r.body, " checked"); n != want {
			t.Fatalf("GET %s: %d checked inputs; want %d", tc.query, n, want)
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
