package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// Rule 15 on the job page: its Answer section (what was answered, and
// who answered) shows only for a job whose question was
// answered or declined: a job that asked nothing shows none, though its
// typed answer, holding no value, is not nil.
func TestRule15_JobPageShowsWhoAnsweredOnlyWhenAQuestionWasAnswered(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	plain := s.create("", "s", "write the README then add tests")
	if plain.Status == askonce.StatusPending {
		t.Fatalf("%q asked %q; want a job that asks nothing", plain.Goal, plain.Question.Text)
	}
	answered := s.answeredIn("", "p", "frozen")

	r := s.get("/ui/jobs/" + plain.ID)
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, `id="answer-h"`) {
		t.Errorf("the page of a job that asked nothing has an Answer section:\n%s", r.body)
	}
	r = s.get("/ui/jobs/" + answered.ID)
	wantStatus(t, r, http.StatusOK)
	for _, want := range []string{`id="answer-h"`, `<p class="answer">frozen</p>`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the page of an answered job lacks %s:\n%s", want, r.body)
		}
	}
}
