package dispatch

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// fakeChannel sends the question to each email address a job names
// (one send per job when perAddress is false), and answers each try
// with answer.
type fakeChannel struct {
	name       string
	kinds      []string // default: question
	perAddress bool
	answer     func(s askonce.Send) error

	mu    sync.Mutex
	tries []askonce.Send
}

func (c *fakeChannel) Name() string { return c.name }
func (c *fakeChannel) Kinds() []string {
	if c.kinds == nil {
		return []string{"question"}
	}
	return c.kinds
}
func (c *fakeChannel) Backoff(int) time.Duration { return time.Millisecond }
func (c *fakeChannel) Send(_ context.Context, s askonce.Send) error {
	c.mu.Lock()
	c.tries = append(c.tries, s)
	c.mu.Unlock()
	return c.answer(s)
}

func (c *fakeChannel) Sends(j *askonce.Job, ev askonce.QuestionEvent) []askonce.Send {
	if ev != askonce.QuestionAsked || j.Notify == nil {
		return nil
	}
	if !c.perAddress {
		return []askonce.Send{{Kind: "question", TenantID: j.TenantID, JobID: j.ID}}
	}
	var out []askonce.Send
	for _, to := range j.Notify.Email {
		out = append(out, askonce.Send{Kind: "question", TenantID: j.TenantID, JobID: j.ID, To: to})
	}
	return out
}

func (c *fakeChannel) triesOf(to string) []askonce.Send {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []askonce.Send
	for _, s := range c.tries {
		if s.To == to {
			out = append(out, s)
		}
	}
	return out
}

// openChannelStack opens a store whose asking jobs queue the sends of
// channels on a started dispatcher.
func openChannelStack(t testing.TB, channels ...askonce.Channel) (*sqlite.Store, *askonce.Engine) {
	t.Helper()
	ctx := t.Context()
	hook := new(Hook)
	st, err := sqlite.Options{OnDispatch: hook.Enqueue, OnNotify: hook.Notify}.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(nil)
	cfg.Channels = channels
	cfg.DB, cfg.Store = st.WriteDB(), st
	d, err := New(ctx, cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	hook.Set(d)
	if err := d.Start(ctx); err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		if err := d.Stop(sctx); err != nil {
			t.Errorf("stop: %v", err)
		}
		st.Close()
	})
	return st, &askonce.Engine{Store: st, Interpreter: asker{}}
}

// riverJob is a channel send's row in River's table.
type riverJob struct{ kind, queue, args, state string }

// waitRiverJobs waits until the job's channel sends are all in state
// and returns them by their "to".
func waitRiverJobs(t *testing.T, st *sqlite.Store, jobID string, n int, state string) map[string]riverJob {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rows, err := st.WriteDB().QueryContext(t.Context(),
			`SELECT kind, queue, json(args), state, COALESCE(json_extract(args, '$.to'), '') FROM river_job
			 WHERE json_extract(args, '$.jobId') = ? AND kind <> ?`, jobID, notifyKind)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]riverJob{}
		done := 0
		for rows.Next() {
			var r riverJob
			var to string
			if err := rows.Scan(&r.kind, &r.queue, &r.args, &r.state, &to); err != nil {
				t.Fatal(err)
			}
			got[to] = r
			if r.state == state {
				done++
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if len(got) == n && done == n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("channel sends of job %s: %+v; want %d %s", jobID, got, n, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// askWith creates a job that asks and names two addresses.
func askWith(t *testing.T, eng *askonce.Engine) *askonce.Job {
	t.Helper()
	j, err := eng.Create(t.Context(), askonce.CreateRequest{Goal: "make cheese",
		Notify: &askonce.Recipients{Email: []string{"a@example.com", "b@example.com"}}})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %+v, %v", j, err)
	}
	return j
}

func TestChannelSends(t *testing.T) {
	t.Parallel()
	t.Run("AreRiverJobsOfTheChannelsQueueKindAndArgs", func(t *testing.T) {
		t.Parallel()
		perAddress := &fakeChannel{name: "email", perAddress: true, answer: func(askonce.Send) error { return nil }}
		once := &fakeChannel{name: "slack", answer: func(askonce.Send) error { return nil }}
		st, eng := openChannelStack(t, perAddress, once)
		j := askWith(t, eng)
		// Two per-address sends, and one of the other channel.
		rows := waitRiverJobs(t, st, j.ID, 3, "completed")
		for to, want := range map[string]riverJob{
			"a@example.com": {"askonce_email_question", "askonce_email", `{"tenantId":"default","jobId":"` + j.ID + `","to":"a@example.com"}`, "completed"},
			"b@example.com": {"askonce_email_question", "askonce_email", `{"tenantId":"default","jobId":"` + j.ID + `","to":"b@example.com"}`, "completed"},
			"":              {"askonce_slack_question", "askonce_slack", `{"tenantId":"default","jobId":"` + j.ID + `"}`, "completed"},
		} {
			if rows[to] != want {
				t.Errorf("send to %q stored as %+v; want %+v", to, rows[to], want)
			}
		}
		for _, to := range []string{"a@example.com", "b@example.com"} {
			if tries := perAddress.triesOf(to); len(tries) != 1 || tries[0] != (askonce.Send{Kind: "question", TenantID: "default", JobID: j.ID, To: to, Attempt: 1}) {
				t.Errorf("tries of the send to %s: %+v; want one, attempt 1", to, tries)
			}
		}
	})
	t.Run("SnoozedIsTriedAgain", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		snoozed := map[string]bool{}
		ch := &fakeChannel{name: "email", perAddress: true, answer: func(s askonce.Send) error {
			mu.Lock()
			defer mu.Unlock()
			if !snoozed[s.To] {
				snoozed[s.To] = true
				return askonce.SnoozeSend(time.Millisecond)
			}
			return nil
		}}
		st, eng := openChannelStack(t, ch)
		j := askWith(t, eng)
		waitRiverJobs(t, st, j.ID, 2, "completed")
		if n := len(ch.triesOf("a@example.com")); n != 2 {
			t.Errorf("%d tries of a snoozed send; want 2", n)
		}
	})
	t.Run("CancelledIsNotTriedAgain", func(t *testing.T) {
		t.Parallel()
		ch := &fakeChannel{name: "email", perAddress: true, answer: func(askonce.Send) error {
			return askonce.CancelSend(errors.New("no such address"))
		}}
		st, eng := openChannelStack(t, ch)
		j := askWith(t, eng)
		waitRiverJobs(t, st, j.ID, 2, "cancelled")
		if n := len(ch.triesOf("a@example.com")); n != 1 {
			t.Errorf("%d tries of a cancelled send; want 1", n)
		}
	})
}

// A channel whose sends would take the River kind of another's, or of
// the dispatcher's own jobs, is refused before anything runs.
func TestChannelOfATakenKindIsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		channels []askonce.Channel
	}{
		{"TwoOfOneName", []askonce.Channel{&fakeChannel{name: "email"}, &fakeChannel{name: "email"}}},
		{"KindOfTheQuestionWebhook", []askonce.Channel{&fakeChannel{name: "question", kinds: []string{"notify"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg := testConfig(nil)
			cfg.DB, cfg.Store = st.WriteDB(), st
			cfg.Channels = tc.channels
			if _, err := New(t.Context(), cfg); err == nil {
				t.Fatal("New took the channels; want an error")
			}
		})
	}
}
