package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/api"
)

// A response below 500 is stored and replayed; a 5xx is not (the
// boundary is 500 exactly), so that a retry runs the handler again.
func TestIdempotency_ResponseIsStoredBelow500AndNotFrom500(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		err    error // the handler fails with this instead
		stored bool
	}{
		{name: "422", status: 422, stored: true},
		{name: "499", status: 499, stored: true},
		{name: "500", status: 500, stored: false},
		{name: "503", status: 503, stored: false},
		{name: "ErrorMappedTo500", err: errors.New("boom"), stored: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := New(Config{Engine: &askonce.Engine{}})
			runs := 0
			rt := &route{Method: "POST", Path: "/probe", api: func(*call) (int, any, error) {
				runs++
				if tc.err != nil {
					return 0, nil, tc.err
				}
				return tc.status, map[string]int{"run": runs}, nil
			}}
			send := func() *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", "/probe", nil)
				w := httptest.NewRecorder()
				s.idempotent(w, &call{r: r, tenant: askonce.DefaultTenant, body: []byte(`{}`), info: &requestInfo{}}, "k", rt)
				return w
			}
			first, second := send(), send()
			if tc.err == nil && first.Code != tc.status {
				t.Fatalf("first response %d, want %d", first.Code, tc.status)
			}
			if tc.stored {
				if runs != 1 || second.Code != first.Code || !bytes.Equal(second.Body.Bytes(), first.Body.Bytes()) || second.Header().Get("Idempotent-Replayed") != "true" {
					t.Fatalf("a %d was not replayed: %d runs, second %d %s", first.Code, runs, second.Code, second.Body)
				}
				return
			}
			if runs != 2 || second.Header().Get("Idempotent-Replayed") != "" {
				t.Fatalf("a %d was stored: %d runs, second %d %s", first.Code, runs, second.Code, second.Body)
			}
			if first.Code < 500 {
				t.Fatalf("first response %d, want a 5xx", first.Code)
			}
			if tc.err == nil && second.Body.String() != fmt.Sprintln(`{"run":2}`) {
				t.Fatalf("the retry's body %q is not its own run's", second.Body)
			}
		})
	}
}

// A stored response has its answer link blanked, whether it is the job's
// own (a job view, a report's job) or that of the job a conflict carries,
// and the replay derives it again: the body as first sent.
func TestIdempotency_StoredResponsesHoldNoAnswerTokenAndReplaysRestoreIt(t *testing.T) {
	t.Parallel()
	s := &Server{engine: &askonce.Engine{LinkSecret: bytes.Repeat([]byte{7}, 32)}, publicURL: "https://askonce.example"}
	j := &askonce.Job{TenantID: "acme", ID: "job-1", Status: askonce.StatusPending, ClarificationStatus: askonce.ClarificationAsked, Goal: `say "answerUrl":"" please`}
	token := s.engine.AnswerToken(j)
	view := s.viewOf(j)
	for name, v := range map[string]any{
		"job view": view,
		"conflict": api.ErrorResponse{Error: "busy", Code: askonce.ECONFLICT, Job: &view},
		"report":   api.ReportResponse{Action: askonce.ActionAsk, Job: view},
	} {
		sent := mustJSON(v)
		if !bytes.Contains(sent, []byte(token)) {
			t.Fatalf("%s: the response carries no link: %s", name, sent)
		}
		stored := withoutAnswerURL(sent)
		if bytes.Contains(stored, []byte(token)) {
			t.Errorf("%s: the stored body holds the token: %s", name, stored)
		}
		if got := s.withAnswerURL("acme", stored); !bytes.Equal(got, sent) {
			t.Errorf("%s: replayed\n%s\nwant\n%s", name, got, sent)
		}
	}
}
