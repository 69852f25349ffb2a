package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce/auth"
)

// A bad reach policy is a 422 naming the step; a good one is stored and
// shown with the job.
func TestCreateWithABadReachPolicyIs422NamingTheStep(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, tc := range []struct {
		name  string
		steps []map[string]any
		msg   string
	}{
		{"OutOfOrder", []map[string]any{{"after": "2h"}, {"after": "1h"}}, "notify.steps[1] runs 1h0m0s after the ask, before the step above it"},
		{"PastTheExpiry", []map[string]any{{"after": "48h"}}, "notify.steps[0] runs 48h0m0s after the ask, at or past the question's expiry"},
		{"UnknownRecipient", []map[string]any{{"after": "1h", "slack": map[string]any{"channel": "#ops"}}}, `notify.steps[0].slack.channel "#ops" is not a Slack channel id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("POST", "/jobs", map[string]any{"goal": "copper ore", "notify": map[string]any{"email": []string{"ops@example.com"}, "steps": tc.steps}})
			wantError(t, r, http.StatusUnprocessableEntity, "invalid", tc.msg)
		})
	}
	steps := []map[string]any{{"after": "30m"}, {"after": "2h", "email": []string{"oncall@example.com"}}, {"beforeExpiry": "1h"}}
	created := e.create(map[string]any{"goal": "copper ore", "notify": map[string]any{"email": []string{"ops@example.com"}, "steps": steps,
		"answerers": map[string]any{"email": []string{"ops@example.com"}}}})
	got := e.do("GET", "/jobs/"+str(created, "jobId"), nil)
	n := obj(got.body, "notify")
	if s, ok := n["steps"].([]any); !ok || len(s) != 3 || obj(n, "answerers") == nil {
		t.Fatalf("GET /jobs/{id} notify = %v; want its three steps and answerers", n)
	}
}

// The recipients a key may name bound its steps' recipients too.
func TestKeyRestrictsTheRecipientsOfItsJobsSteps(t *testing.T) {
	t.Parallel()
	keys, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("limited") + " notify=email:*@acme.example\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	limited := []string{"Authorization", "Bearer limited"}
	r := e.do("POST", "/jobs", map[string]any{"goal": "copper ore", "notify": map[string]any{"email": []string{"ann@acme.example"},
		"steps": []map[string]any{{"after": "1h", "email": []string{"eve@evil.example"}}}}}, limited...)
	wantError(t, r, http.StatusUnprocessableEntity, "invalid", `notify.steps[0].email[0] "eve@evil.example" is not among the recipients this API key may use`)
}
