package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// askGate creates a gate job in the default tenant and returns a function
// that makes it ask.
func askGate(t *testing.T, s *inboxSite, goal string, notify *askonce.Recipients) (*askonce.Job, func()) {
	t.Helper()
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{Goal: goal, Mode: askonce.ModeGate, Notify: notify})
	if err != nil {
		t.Fatal(err)
	}
	return j, func() {
		if _, err := s.engine.Report(context.Background(), "", j.ID, askonce.Report{Question: &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which one, " + goal + "?"}}); err != nil {
			t.Fatal(err)
		}
	}
}

// The inbox lists pending questions by how long they have waited (from
// the ask, not the job's creation), longest first, with who was reached
// and when each step of the reach policy runs.
func TestInboxShowsHowLongEachQuestionWaitedAndWhoWasReached(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	first, askFirst := askGate(t, s, "created first", nil)
	second, askSecond := askGate(t, s, "created second", &askonce.Recipients{Email: []string{"ann@example.com"}, Steps: []askonce.ReachStep{
		{After: "30m"}, {After: "2h", Email: []string{"oncall@example.com"}}}})
	askSecond()
	askFirst()
	r := s.get("/ui")
	wantStatus(t, r, http.StatusOK)
	pending := r.body[strings.Index(r.body, `id="pending-h"`):strings.Index(r.body, `id="jobs-h"`)]
	i1, i2 := strings.Index(pending, "/ui/jobs/"+first.ID), strings.Index(pending, "/ui/jobs/"+second.ID)
	if i1 < 0 || i2 < 0 || i2 > i1 {
		t.Fatalf("the question asked first (of the job created second) is at %d, the other at %d; want it first:\n%s", i2, i1, pending)
	}
	for _, want := range []string{"waiting", "asked <span class=\"who\">ann@example.com</span>", "reminder <span class=\"who\">ann@example.com</span> due", "escalation <span class=\"who\">oncall@example.com</span> due"} {
		if !strings.Contains(pending, want) {
			t.Errorf("pending section lacks %q:\n%s", want, pending)
		}
	}
}

// The job page lists each reminder, escalation and failed step.
func TestJobPageListsRemindersEscalationsAndFailedSteps(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	j, ask := askGate(t, s, "reach", &askonce.Recipients{Email: []string{"ann@example.com"}, Steps: []askonce.ReachStep{
		{After: "30m"}, {After: "2h", Email: []string{"oncall@example.com"}}}})
	ask()
	ea := s.engine.Store.(askonce.EventAppender)
	for _, ev := range []struct {
		typ  askonce.EventType
		data any
	}{
		{askonce.EventReminded, askonce.ReachData{Step: 1, Email: []string{"ann@example.com"}, WaitedSeconds: 1800}},
		{askonce.EventEscalated, askonce.ReachData{Step: 2, NewEmail: []string{"oncall@example.com"}, WaitedSeconds: 7200}},
		{askonce.EventReachFailed, map[string]any{"step": 2, "channel": "email", "to": "oncall@example.com", "error": "<b>550 no such user</b>"}},
	} {
		data, _ := json.Marshal(ev.data)
		if err := ea.AppendEvent(context.Background(), askonce.Event{TenantID: j.TenantID, JobID: j.ID, Type: ev.typ, At: time.Now(), Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	r := s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	i := strings.Index(r.body, `id="reach-h"`)
	if i < 0 {
		t.Fatalf("the job page has no reminders section:\n%s", r.body)
	}
	section := r.body[i:strings.Index(r.body, `id="attempts-h"`)]
	for _, want := range []string{"reminded</strong>", "step 1 after 30m · reminded ann@example.com", "escalated</strong>", "step 2 after 2h · sent to oncall@example.com",
		"reach failed</strong>", "email to oncall@example.com failed for good", "&lt;b&gt;550 no such user&lt;/b&gt;"} {
		if !strings.Contains(section, want) {
			t.Errorf("reminders section lacks %q:\n%s", want, section)
		}
	}
}

// A link mailed to one person carries their address and mark: the page
// records which person answered, and refuses, records and does not
// spend the question on an answer from someone not among the job's
// answerers. The plain link is a credential still.
func TestAnswerPageHoldsAPersonalEmailLinkToTheAnswerers(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{Goal: selectGoal, Notify: &askonce.Recipients{
		Email: []string{"ann@example.com", "eve@example.com"}, Answerers: &askonce.Answerers{Email: []string{"ann@example.com"}}}})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %+v, %v", j, err)
	}
	link := "/a/" + s.engine.AnswerToken(j)
	personal := func(addr string) string {
		return link + "?" + url.Values{"via": {askonce.ViaEmailLink}, "by": {addr}, "mark": {s.engine.RecipientMark(j, addr)}}.Encode()
	}
	// The page's form posts back with the address and mark.
	page := s.get(t, personal("eve@example.com"))
	mustContain(t, page, `by=eve%40example.com&amp;mark=`)
	// A mark is good for its own address only.
	if got := s.engine.RecipientOf(j, "ann@example.com", s.engine.RecipientMark(j, "eve@example.com")); got != "" {
		t.Fatalf("eve's mark passed for ann: %q", got)
	}
	r := s.post(t, personal("eve@example.com"), url.Values{"answer": {"frozen"}})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "your answer was not taken") {
		t.Fatalf("eve's answer: %d\n%s; want 403 saying it was not taken", r.status, r.body)
	}
	got, err := s.engine.Get(context.Background(), j.TenantID, j.ID)
	if err != nil || got.Status != askonce.StatusPending {
		t.Fatalf("after eve's answer the job is %+v, %v; want still pending", got, err)
	}
	evs, _ := s.engine.Events(context.Background(), j.TenantID, j.ID, 0, 0)
	if last := evs[len(evs)-1]; last.Type != askonce.EventAnswerRefused || !strings.Contains(string(last.Data), "eve@example.com") {
		t.Errorf("last event %s %s; want answer_refused naming eve", last.Type, last.Data)
	}
	if r := s.post(t, personal("ann@example.com"), url.Values{"answer": {"frozen"}}); r.status != http.StatusSeeOther {
		t.Fatalf("ann's answer: %d\n%s", r.status, r.body)
	}
	done := s.waitJob(t, j.ID)
	if done.AnsweredVia != askonce.ViaEmailLink || done.AnsweredBy != "ann@example.com" || done.Answer.String() != "frozen" {
		t.Errorf("answered %q via %q by %q; want frozen via email-link by ann@example.com", done.Answer, done.AnsweredVia, done.AnsweredBy)
	}
}
