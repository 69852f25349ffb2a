package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// What a newcomer reads on the pages, each said once and in the same
// words as the terminal.
func TestPagesSayEachThingOnce(t *testing.T) {
	t.Parallel()
	t.Run("AnswerPageHeaderDoesNotRepeatTheTitleAsTheGoal", testAnswerPageHeaderDoesNotRepeatTheTitleAsTheGoal)
	t.Run("AnsweredLinkSaysWhatTheAnswerWas", testAnsweredLinkSaysWhatTheAnswerWas)
	t.Run("JobPageSaysNoModelTokensForTheRulesInterpreter", testJobPageSaysNoModelTokensForTheRulesInterpreter)
	t.Run("JobPageCallsAQuestionNotNeededSkippedAsJobsListDoes", testJobPageCallsAQuestionNotNeededSkippedAsJobsListDoes)
}

// "Hot frozen cheese · Goal: hot frozen cheese" says one thing twice: a
// title that is the goal with a capital letter is shown alone.
func testAnswerPageHeaderDoesNotRepeatTheTitleAsTheGoal(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	j, link := s.ask(t, selectGoal)
	if !strings.EqualFold(j.Title, j.Goal) {
		t.Fatalf("fixture: title %q is not the goal %q", j.Title, j.Goal)
	}
	r := s.get(t, link)
	mustContain(t, r, `<strong class="job-title">`+j.Title+`</strong>`)
	if strings.Contains(r.body, "Goal:") || strings.Contains(r.body, `class="job-goal"`) {
		t.Errorf("the header repeats the title as the goal:\n%s", header(r.body))
	}
}

// header is the answer page's line above the question.
func header(page string) string {
	_, rest, _ := strings.Cut(page, `<p class="muted job-context">`)
	line, _, _ := strings.Cut(rest, "</p>")
	return line
}

// A second visit to a used link says it was answered, by whom, and what
// the answer was.
func testAnsweredLinkSaysWhatTheAnswerWas(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	_, link := s.ask(t, selectGoal)
	if r := s.post(t, link, url.Values{"answer": {"frozen"}}); r.status != http.StatusSeeOther {
		t.Fatalf("answer: %d %s", r.status, r.body)
	}
	r := s.get(t, link)
	if r.status != http.StatusGone {
		t.Fatalf("second visit: status %d, want 410", r.status)
	}
	mustContain(t, r, "already answered", "by a person", `The answer: <strong class="answer">frozen</strong>`)
}

// The rules interpreter calls no model: the job page says so rather than
// a count of words dressed as tokens ("3 prompt + 30 completion tokens").
func testJobPageSaysNoModelTokensForTheRulesInterpreter(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	j := s.create("", "", planningGoal)
	r := s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	_, usage, _ := strings.Cut(r.body, `<dd class="usage">`)
	usage, _, _ = strings.Cut(usage, "</dd>")
	if usage != "1 attempt · no model tokens" {
		t.Errorf("the interpreter line says %q, want %q", html.UnescapeString(usage), "1 attempt · no model tokens")
	}
}

// jobs list and the API say skipped for a job whose interpreter had
// nothing to ask; the job page says the same word.
func testJobPageCallsAQuestionNotNeededSkippedAsJobsListDoes(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	j := s.create("", "", planningGoal)
	if j.ClarificationStatus != "skipped" {
		t.Fatalf("fixture: %q has clarification %s, want skipped", planningGoal, j.ClarificationStatus)
	}
	r := s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, "<dt>Question</dt><dd>skipped") || strings.Contains(r.body, "not needed") {
		t.Errorf("the job page does not call the question skipped:\n%s", r.body)
	}
}
