package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// newAPI runs the real server on a real SQLite file with the rules
// interpreter, and returns a client of it over loopback HTTP and one that
// calls the same handler in process.
func newAPI(t *testing.T) (*client.Client, *client.Client) {
	t.Helper()
	return newAPIWith(t, nil)
}

// newAPIWith is newAPI with the rules interpreter passed through wrap
// (nil: as it is).
func newAPIWith(t *testing.T, wrap func(askonce.Interpreter) askonce.Interpreter) (*client.Client, *client.Client) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "askonce.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var interp askonce.Interpreter
	if interp, err = rules.New(rules.Options{}); err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		interp = wrap(interp)
	}
	eng := &askonce.Engine{Store: st, Interpreter: interp}
	api := server.New(server.Config{Engine: eng, PollInterval: 20 * time.Millisecond})
	srv := httptest.NewServer(api)
	t.Cleanup(func() { srv.Close(); eng.Drain(ctx) })
	c, err := client.New(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	return c, client.NewHandler(api)
}

func TestNewRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://x", "http://"} {
		if _, err := client.New(u); err == nil {
			t.Errorf("New(%q) = nil error", u)
		}
	}
}

// The rules interpreter asks the question types the CLI's pickers rely on.
func TestQuestionTypes(t *testing.T) {
	t.Parallel()
	c, _ := newAPI(t)
	ctx := context.Background()
	for _, tc := range []struct {
		goal    string
		files   []string
		typ     askonce.QuestionType
		options []string
		profile string
	}{
		{"hot frozen cheese", nil, askonce.QuestionSelectOne, []string{"hot", "frozen"}, ""},
		{"delete the build folder", nil, askonce.QuestionConfirm, nil, ""},
		{"deploy to staging or production", nil, askonce.QuestionSelectOne, nil, ""},
		{"fix the typo in the file", []string{"a.md", "b.md"}, askonce.QuestionTargetFile, []string{"a.md", "b.md"}, ""},
		{"make a mod", nil, askonce.QuestionFreeText, nil, "minecraft-mod"}, // the profile's opt-in vague check
	} {
		j, err := c.Create(ctx, client.CreateRequest{Goal: tc.goal, Files: tc.files, Profile: tc.profile})
		if err != nil {
			t.Fatalf("%q: %v", tc.goal, err)
		}
		if j.NeedsClarification == nil || !*j.NeedsClarification || j.Status != askonce.StatusPending || j.ClarificationType != tc.typ {
			t.Errorf("%q: status %s type %s needs %v; want pending %s", tc.goal, j.Status, j.ClarificationType, j.NeedsClarification, tc.typ)
		}
		if tc.options != nil && strings.Join(j.ClarificationOptions, ",") != strings.Join(tc.options, ",") {
			t.Errorf("%q: options %q, want %q", tc.goal, j.ClarificationOptions, tc.options)
		}
	}
	j, err := c.Create(ctx, client.CreateRequest{Goal: "write the README then add tests"})
	if err != nil || j.Status != askonce.StatusSuccess || j.Plan == nil || len(j.Plan.Tasks) < 2 {
		t.Fatalf("plain goal: %+v, %v", j, err)
	}
}

func TestLifecycleAndTypedErrors(t *testing.T) {
	t.Parallel()
	for name, pick := range map[string]int{"http": 0, "in-process": 1} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			hc, pc := newAPI(t)
			c := []*client.Client{hc, pc}[pick]
			ctx := context.Background()
			j, err := c.Create(ctx, client.CreateRequest{Goal: "hot frozen cheese", SessionID: "s1"})
			if err != nil || j.Status != askonce.StatusPending {
				t.Fatalf("create: %+v %v", j, err)
			}
			// Blank: invalid whether or not the question allows other text.
			_, err = c.Answer(ctx, j.JobID, "  ")
			var e *client.Error
			if !errors.As(err, &e) || e.Status != 422 || e.Code != "invalid" || e.Message == "" || strings.Join(e.Allowed, ",") != "hot,frozen" || !client.IsInvalid(err) {
				t.Fatalf("invalid answer: %#v", err)
			}
			done, err := c.Answer(ctx, j.JobID, "hot")
			if err != nil || done.Status != askonce.StatusSuccess || done.ClarificationSource != askonce.SourceUser || done.Plan == nil {
				t.Fatalf("answer: %+v %v", done, err)
			}
			_, err = c.Answer(ctx, j.JobID, "frozen")
			if !errors.As(err, &e) || e.Status != 409 || !client.IsConflict(err) || e.Job == nil || e.Job.Status != askonce.StatusSuccess {
				t.Fatalf("second answer: %#v", err)
			}
			if _, err := c.Get(ctx, "0190aaaa-0000-7000-8000-000000000000"); !client.IsNotFound(err) {
				t.Fatalf("get unknown: %v", err)
			}
			d, err := c.Get(ctx, j.JobID)
			if err != nil || d.JobID != j.JobID || len(d.Attempts) == 0 {
				t.Fatalf("get: %+v %v", d, err)
			}

			// The repeat guard answers the same question in the same session.
			again, err := c.Create(ctx, client.CreateRequest{Goal: "hot frozen cheese", SessionID: "s1"})
			if err != nil || again.Status != askonce.StatusSuccess || again.ClarificationSource != askonce.SourceHistory || again.ClarificationAnswer != "hot" || again.ClarificationQuestion == "" {
				t.Fatalf("repeat: %+v %v", again, err)
			}
			h, err := c.History(ctx, "s1")
			if err != nil || len(h.Entries) != 1 || h.Entries[0].Answer != "hot" {
				t.Fatalf("history: %+v %v", h, err)
			}
			l, err := c.List(ctx, client.ListOptions{SessionID: "s1", Limit: 10})
			if err != nil || len(l.Jobs) != 2 || l.Jobs[0].JobID != again.JobID {
				t.Fatalf("list: %+v %v", l, err)
			}
			if _, err := c.List(ctx, client.ListOptions{Status: "bogus"}); !errors.As(err, &e) || e.Code != client.CodeBadRequest {
				t.Fatalf("list bad status: %v", err)
			}

			// Cancel and decline.
			p, _ := c.Create(ctx, client.CreateRequest{Goal: "make a mod", Profile: "minecraft-mod"})
			if cj, err := c.Cancel(ctx, p.JobID); err != nil || cj.Status != askonce.StatusCancelled {
				t.Fatalf("cancel: %+v %v", cj, err)
			}
			if _, err := c.Cancel(ctx, p.JobID); !client.IsConflict(err) {
				t.Fatalf("cancel again: %v", err)
			}
			q, _ := c.Create(ctx, client.CreateRequest{Goal: "delete the build folder"})
			if dj, err := c.Decline(ctx, q.JobID); err != nil || dj.Status == askonce.StatusPending {
				t.Fatalf("decline: %+v %v", dj, err)
			}

			// Events as JSON, and as a stream that ends with the settled job.
			evs, err := c.Events(ctx, j.JobID, 0)
			if err != nil || len(evs.Events) < 3 {
				t.Fatalf("events: %+v %v", evs, err)
			}
			var streamed []askonce.Event
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			last, err := c.Stream(sctx, j.JobID, 0, func(ev askonce.Event) error { streamed = append(streamed, ev); return nil })
			if err != nil || len(streamed) != len(evs.Events) || last != evs.Events[len(evs.Events)-1].ID {
				t.Fatalf("stream: %d events (want %d), last %d, %v", len(streamed), len(evs.Events), last, err)
			}
			after, err := c.Events(ctx, j.JobID, last)
			if err != nil || len(after.Events) != 0 {
				t.Fatalf("events after last: %+v %v", after, err)
			}
			stop := errors.New("stop")
			if _, err := c.Stream(sctx, j.JobID, 0, func(askonce.Event) error { return stop }); err != stop {
				t.Fatalf("stream stop: %v", err)
			}
			if _, err := c.Stream(sctx, "nope", 0, func(askonce.Event) error { return nil }); !client.IsNotFound(err) {
				t.Fatalf("stream unknown: %v", err)
			}

			// Gate mode: the agent reports a question and is told to ask.
			g, err := c.Create(ctx, client.CreateRequest{Goal: "ship it", Mode: askonce.ModeGate})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := c.Report(ctx, g.JobID, client.ReportRequest{Question: &askonce.Question{Type: askonce.QuestionConfirm, Text: "Ship now?"}})
			if err != nil || rep.Action != askonce.ActionAsk || rep.Job.Status != askonce.StatusPending {
				t.Fatalf("report: %+v %v", rep, err)
			}
			if err := c.Health(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	interp, _ := rules.New(rules.Options{})
	keys, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("s3cret") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.New(server.Config{Engine: &askonce.Engine{Store: st, Interpreter: interp}, Keys: keys}))
	defer srv.Close()
	anon, _ := client.New(srv.URL)
	var e *client.Error
	if _, err := anon.List(ctx, client.ListOptions{}); !errors.As(err, &e) || e.Status != 401 || e.Code != client.CodeUnauthorized {
		t.Fatalf("no key: %v", err)
	}
	keyed, _ := client.New(srv.URL, client.WithAPIKey("s3cret"))
	if _, err := keyed.List(ctx, client.ListOptions{}); err != nil {
		t.Fatalf("with key: %v", err)
	}
}

// An allowOther question reaches the client in the job view and in a
// report's question, and an answer of the user's own is accepted; an
// invalid one is an *Error that says other text is allowed.
func TestAllowOther(t *testing.T) {
	t.Parallel()
	c, _ := newAPI(t)
	ctx := context.Background()
	g, err := c.Create(ctx, client.CreateRequest{Goal: "ship it", Mode: askonce.ModeGate})
	if err != nil {
		t.Fatal(err)
	}
	q := &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Where to?", Options: []string{"staging", "production"}, AllowOther: true}
	rep, err := c.Report(ctx, g.JobID, client.ReportRequest{Question: q})
	if err != nil || rep.Action != askonce.ActionAsk || rep.Question == nil || !rep.Question.AllowOther || !rep.Job.ClarificationAllowOther {
		t.Fatalf("report: %+v %v", rep, err)
	}
	d, err := c.Get(ctx, g.JobID)
	if err != nil || !d.ClarificationAllowOther {
		t.Fatalf("get: %+v %v", d, err)
	}
	_, err = c.Answer(ctx, g.JobID, strings.Repeat("x", askonce.MaxFreeText+1))
	var e *client.Error
	if !errors.As(err, &e) || !client.IsInvalid(err) || !strings.Contains(e.Message, "other text of your own") || strings.Join(e.Allowed, ",") != "staging,production" {
		t.Fatalf("over-long answer: %#v", err)
	}
	j, err := c.Answer(ctx, g.JobID, "the canary cluster")
	if err != nil || j.ClarificationAnswer != "the canary cluster" || j.ClarificationSource != askonce.SourceUser {
		t.Fatalf("answer of one's own: %+v %v", j, err)
	}
}
