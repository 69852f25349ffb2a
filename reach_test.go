package askonce_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// A bad reach policy is refused at create with an error naming the
// step; a good one is stored with the job.
func TestReachPolicyIsValidatedAtCreate(t *testing.T) {
	t.Parallel()
	alice := &askonce.SlackRecipient{User: "U0ALICE01"}
	steps := func(s ...askonce.ReachStep) []askonce.ReachStep { return s }
	for _, tc := range []struct {
		name  string
		steps []askonce.ReachStep
		want  string // "" for accepted
	}{
		{"Accepted", steps(askonce.ReachStep{After: "30m", Slack: alice}, askonce.ReachStep{After: "2h", Email: []string{"oncall@example.com"}}, askonce.ReachStep{BeforeExpiry: "1h"}), ""},
		{"NoOffset", steps(askonce.ReachStep{}), `notify.steps[0]: give exactly one of "after" and "beforeExpiry"`},
		{"TwoOffsets", steps(askonce.ReachStep{After: "1h", BeforeExpiry: "1h"}), `notify.steps[0]: give exactly one`},
		{"BadDuration", steps(askonce.ReachStep{After: "soon"}), `notify.steps[0]: after "soon" is not a positive duration`},
		{"OutOfOrder", steps(askonce.ReachStep{After: "2h"}, askonce.ReachStep{After: "1h"}), "notify.steps[1] runs 1h0m0s after the ask, before the step above it"},
		{"TooClose", steps(askonce.ReachStep{After: "1h"}, askonce.ReachStep{After: "1h0m30s"}), "notify.steps[1] runs 30s after the step above it, less than the minimum interval of 1m0s"},
		{"TooSoonAfterTheAsk", steps(askonce.ReachStep{After: "10s"}), "notify.steps[0] runs 10s after the ask, less than the minimum interval"},
		{"PastTheExpiry", steps(askonce.ReachStep{After: "25h"}), "notify.steps[0] runs 25h0m0s after the ask, at or past the question's expiry (24h0m0s)"},
		{"BeforeTheAsk", steps(askonce.ReachStep{BeforeExpiry: "30h"}), "notify.steps[0] runs before the ask"},
		{"TooMany", slices.Repeat(steps(askonce.ReachStep{After: "1h"}), 9), "notify.steps: 9 steps given; the limit is 8"},
		{"BadRecipient", steps(askonce.ReachStep{After: "1h", Email: []string{"Ann <a@example.com>"}}), `notify.steps[0].email[0] "Ann <a@example.com>" is not an email address`},
		{"BadSlack", steps(askonce.ReachStep{After: "1h", Slack: &askonce.SlackRecipient{User: "alice"}}), `notify.steps[0].slack.user "alice" is not a Slack user id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := &askonce.Engine{Store: openStore(t, filepath.Join(t.TempDir(), "a.db"))}
			j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "g", Mode: askonce.ModeGate,
				Notify: &askonce.Recipients{Slack: alice, Steps: tc.steps}})
			if tc.want == "" {
				if err != nil || len(j.Notify.Steps) != len(tc.steps) {
					t.Fatalf("create: %v; want the job with its %d steps", err, len(tc.steps))
				}
				got, err := e.Get(t.Context(), j.TenantID, j.ID)
				if err != nil || !slices.EqualFunc(got.Notify.Steps, tc.steps, func(a, b askonce.ReachStep) bool {
					return a.After == b.After && a.BeforeExpiry == b.BeforeExpiry && slices.Equal(a.Email, b.Email)
				}) {
					t.Errorf("stored steps %+v, %v; want %+v", got.Notify.Steps, err, tc.steps)
				}
				return
			}
			if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), tc.want) {
				t.Fatalf("create: %v; want EINVALID containing %q", err, tc.want)
			}
		})
	}
}

// serve --reach-min-interval (Engine.ReachMinInterval) lets tests and
// demos place steps seconds apart.
func TestReachMinIntervalIsTheEnginesSetting(t *testing.T) {
	t.Parallel()
	e := &askonce.Engine{Store: openStore(t, filepath.Join(t.TempDir(), "a.db")), ReachMinInterval: time.Second}
	_, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "g", Mode: askonce.ModeGate,
		Notify: &askonce.Recipients{Email: []string{"a@example.com"}, Steps: []askonce.ReachStep{{After: "1s"}, {After: "2s"}}}})
	if err != nil {
		t.Fatalf("steps 1s apart with a 1s minimum: %v", err)
	}
}

// A step that names no one reminds everyone reached so far; one that
// names someone reminds them if they were reached, and escalates to
// them if not.
func TestReachStepRemindsTheReachedAndEscalatesToTheNew(t *testing.T) {
	t.Parallel()
	alice := askonce.SlackRecipient{User: "U0ALICE01"}
	ops := askonce.SlackRecipient{Channel: "C0OPS0001"}
	r := &askonce.Recipients{Slack: &alice, Email: []string{"a@example.com"}, Steps: []askonce.ReachStep{
		{After: "30m", Slack: &alice},
		{After: "2h", Email: []string{"oncall@example.com"}, Slack: &ops},
		{BeforeExpiry: "1h"},
	}}
	remind, escalate := r.Step(1)
	if !slices.Equal(remind.Slack, []askonce.SlackRecipient{alice}) || len(remind.Email) != 0 || !escalate.Empty() {
		t.Errorf("step 1: remind %+v, escalate %+v; want alice reminded", remind, escalate)
	}
	remind, escalate = r.Step(2)
	if !remind.Empty() || !slices.Equal(escalate.Slack, []askonce.SlackRecipient{ops}) || !slices.Equal(escalate.Email, []string{"oncall@example.com"}) {
		t.Errorf("step 2: remind %+v, escalate %+v; want #ops and oncall@ reached first", remind, escalate)
	}
	remind, escalate = r.Step(3)
	if !slices.Equal(remind.Slack, []askonce.SlackRecipient{alice, ops}) || !slices.Equal(remind.Email, []string{"a@example.com", "oncall@example.com"}) || !escalate.Empty() {
		t.Errorf("step 3: remind %+v, escalate %+v; want everyone so far reminded", remind, escalate)
	}
}

// A step runs at its offset after the ask, or before the expiry; one
// that would run at or after this question's expiry does not run.
func TestReachStepAt(t *testing.T) {
	t.Parallel()
	asked := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	exp := asked.Add(3 * time.Hour)
	for _, tc := range []struct {
		step askonce.ReachStep
		at   time.Time
		ok   bool
	}{
		{askonce.ReachStep{After: "30m"}, asked.Add(30 * time.Minute), true},
		{askonce.ReachStep{BeforeExpiry: "1h"}, asked.Add(2 * time.Hour), true},
		{askonce.ReachStep{After: "3h"}, time.Time{}, false},
		{askonce.ReachStep{BeforeExpiry: "4h"}, time.Time{}, false},
	} {
		at, ok := tc.step.At(asked, &exp)
		if ok != tc.ok || !at.Equal(tc.at) {
			t.Errorf("%+v.At = %v, %v; want %v, %v", tc.step, at, ok, tc.at, tc.ok)
		}
	}
}

// Answerers restrict answers on Slack and by email only: the answer link
// and the API stay as they are.
func TestAnswerersRestrictSlackAndEmailAnswersOnly(t *testing.T) {
	t.Parallel()
	r := &askonce.Recipients{Answerers: &askonce.Answerers{Slack: []string{"U0ALICE01"}, Email: []string{"Ann@example.com"}}}
	for _, tc := range []struct {
		a    askonce.Answerer
		want bool
	}{
		{askonce.Answerer{Via: askonce.ViaSlack, By: "U0ALICE01"}, true},
		{askonce.Answerer{Via: askonce.ViaSlack, By: "U0MALLORY1"}, false},
		{askonce.Answerer{Via: askonce.ViaEmailLink, By: "ann@example.com"}, true},
		{askonce.Answerer{Via: askonce.ViaEmailLink, By: "eve@example.com"}, false},
		{askonce.Answerer{Via: askonce.ViaEmailLink}, true},
		{askonce.Answerer{Via: askonce.ViaEmailLink, By: "ci-bot"}, true},
		{askonce.Answerer{Via: askonce.ViaWeb}, true},
		{askonce.Answerer{Via: askonce.ViaHTTP, By: "ci"}, true},
	} {
		if got := r.MayAnswer(tc.a); got != tc.want {
			t.Errorf("MayAnswer(%+v) = %v; want %v", tc.a, got, tc.want)
		}
	}
	if !(*askonce.Recipients)(nil).MayAnswer(askonce.Answerer{Via: askonce.ViaSlack, By: "U0ANYONE01"}) {
		t.Error("a job naming no answerers refused a Slack answer")
	}
	bad := &askonce.Recipients{Answerers: &askonce.Answerers{Slack: []string{"alice"}}}
	if err := bad.Validate(); err == nil || !strings.Contains(askonce.ErrorMessage(err), "notify.answerers.slack[0]") {
		t.Errorf("Validate of a malformed answerer: %v; want it named", err)
	}
}

// Rule 12 (audit): a refused answer is recorded as an event, and the job
// does not change: same version, same updatedAt, still waiting.
func TestRule12_RefusedAnswerIsAuditedAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := &askonce.Engine{Store: openStore(t, filepath.Join(t.TempDir(), "a.db"))}
	j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "g", Mode: askonce.ModeGate,
		Notify: &askonce.Recipients{Slack: &askonce.SlackRecipient{Channel: "C0123ABCD"}, Answerers: &askonce.Answerers{Slack: []string{"U0ALICE01"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Report(t.Context(), "", j.ID, askonce.Report{Question: &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which?"}}); err != nil {
		t.Fatal(err)
	}
	before, err := e.Get(t.Context(), j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RefuseAnswer(t.Context(), before, askonce.Answerer{Via: askonce.ViaSlack, By: "U0MALLORY1"}); err != nil {
		t.Fatal(err)
	}
	after, err := e.Get(t.Context(), j.TenantID, j.ID)
	if err != nil || after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) || after.Status != askonce.StatusPending {
		t.Fatalf("job after a refused answer: %+v, %v; want it unchanged", after, err)
	}
	evs, err := e.Events(t.Context(), j.TenantID, j.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if last.Type != askonce.EventAnswerRefused || string(last.Data) != `{"via":"slack","by":"U0MALLORY1"}` {
		t.Errorf("last event %s %s; want answer_refused naming who", last.Type, last.Data)
	}
}
