package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
	"github.com/askonce/askonce/webhook"
)

const linkBase = "https://askonce.example.test"

// asker asks one question on a job's first interpretation and plans after.
type asker struct{}

func (asker) Interpret(_ context.Context, req *askonce.Request) (*askonce.Response, error) {
	if req.Reason == askonce.ReasonInitial {
		return &askonce.Response{Raw: []byte(`{"question":{"type":"CONFIRM","text":"Delete the old recipes?","reason":"target_file_exists","default":"no"}}`)}, nil
	}
	return &askonce.Response{Raw: []byte(`{"plan":{"tasks":[{"id":"a","title":"Make it"}]}}`)}, nil
}

// openNotifyStack opens the file at path with a dispatcher that sends
// question notifications to url, and an engine with the database's link
// secret.
func openNotifyStack(t *testing.T, path, url string) *stack {
	t.Helper()
	ctx := t.Context()
	s := &stack{path: path, hook: new(Hook)}
	var err error
	s.st, err = sqlite.Options{OnDispatch: s.hook.Enqueue, OnNotify: s.hook.Notify}.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.eng = &askonce.Engine{Store: s.st, Interpreter: asker{}, LinkSecret: s.st.LinkSecret()}
	cfg := testConfig(nil)
	cfg.Notify = &Webhook{URL: url, Secret: secret}
	cfg.AnswerURL = func(j *askonce.Job) string { return s.eng.QuestionURL(linkBase, j) }
	cfg.DB, cfg.Store = s.st.WriteDB(), s.st
	if s.d, err = New(ctx, cfg); err != nil {
		s.st.Close()
		t.Fatal(err)
	}
	s.hook.Set(s.d)
	if err := s.d.Start(ctx); err != nil {
		s.st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.close(t) })
	return s
}

// waitAcked waits until the receiver acknowledged n distinct ids.
func waitAcked(t *testing.T, rcv *receiver, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for rcv.ackCount() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications acknowledged, want %d", rcv.ackCount(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestQuestionAskedCarriesTheQuestionAndAnswerURLSigned(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	path := filepath.Join(t.TempDir(), "a.db")
	s := openNotifyStack(t, path, rcv.URL)
	j, err := s.eng.Create(context.Background(), askonce.CreateRequest{Goal: "make cheese", SessionID: "s1"})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %+v, %v", j, err)
	}
	tok := s.eng.AnswerToken(j)
	waitAcked(t, rcv, 1)
	reqs := rcv.requests(j.ID + ":question.asked")
	if len(reqs) != 1 {
		t.Fatalf("%d question.asked requests, want 1", len(reqs))
	}
	if err := webhook.Verify(secret, reqs[0].header, reqs[0].body, time.Minute); err != nil {
		t.Errorf("Verify: %v", err)
	}
	var ev AskedEvent
	if err := json.Unmarshal(reqs[0].body, &ev); err != nil {
		t.Fatal(err)
	}
	want := AskedEvent{
		Type: "question.asked", JobID: j.ID, TenantID: askonce.DefaultTenant, SessionID: "s1", Title: j.Title,
		Question: NotifiedQuestion{Text: "Delete the old recipes?", Type: askonce.QuestionConfirm, Options: []string{"yes", "no"},
			Default: "no", ExpiresAt: j.Question.ExpiresAt},
		AnswerURL: linkBase + "/a/" + tok,
	}
	got := ev
	got.At = time.Time{}
	if got.Question.ExpiresAt == nil || !got.Question.ExpiresAt.Equal(*want.Question.ExpiresAt) {
		t.Errorf("expiresAt %v, want %v", got.Question.ExpiresAt, want.Question.ExpiresAt)
	}
	got.Question.ExpiresAt = want.Question.ExpiresAt
	if b, w := mustMarshal(t, got), mustMarshal(t, want); !bytes.Equal(b, w) {
		t.Errorf("question.asked\n got %s\nwant %s", b, w)
	}
	if ev.At.IsZero() || time.Since(ev.At) > time.Minute {
		t.Errorf("at = %v, want the time of the ask", ev.At)
	}

	// Only the token's hash is stored: not in River's args, not anywhere
	// in the file.
	var args string
	if err := s.st.WriteDB().QueryRow(`SELECT group_concat(CAST(args AS TEXT), ' ') FROM river_job`).Scan(&args); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(args, j.ID) || strings.Contains(args, tok) {
		t.Errorf("river_job args %s: want the job id and no token", args)
	}
	s.close(t)
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(tok)) {
			t.Errorf("%s holds the raw token", filepath.Base(f))
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestQuestionNotificationsExactlyOnceAcrossRestart asks on many jobs,
// resolves each (answer, decline, cancel, expiry), with some first tries
// failing, stops everything mid-way, re-opens the file and checks that the
// receiver acknowledged each job's asked and resolved event exactly once,
// every one signed.
func TestQuestionNotificationsExactlyOnceAcrossRestart(t *testing.T) {
	t.Parallel()
	const jobs = 20
	rcv := newReceiver(t, func(id string, n int) int {
		if n == 1 && strings.ContainsAny(id[35:36], "02468ace") {
			return http.StatusBadGateway
		}
		return http.StatusNoContent
	})
	rcv.delay = 10 * time.Millisecond
	path := filepath.Join(t.TempDir(), "a.db")
	s := openNotifyStack(t, path, rcv.URL)
	now := time.Now().UTC()
	s.eng.Now = func() time.Time { return now }

	// made is a job and the resolved event it must cause.
	type made struct {
		id   string
		want ResolvedEvent
	}
	out := make(chan made, jobs)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Go(func() {
			ctx := context.Background()
			j, err := s.eng.Create(ctx, askonce.CreateRequest{Goal: "make cheese"})
			if err != nil || j.Status != askonce.StatusPending {
				t.Errorf("create: %+v %v", j, err)
				return
			}
			want := ResolvedEvent{Type: "question.resolved", JobID: j.ID, Status: askonce.StatusPlanning,
				ClarificationStatus: askonce.ClarificationAnswered, At: now}
			switch i % 3 {
			case 0:
				_, _, err = s.eng.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("yes")})
				want.Source = askonce.SourceUser
			case 1:
				_, _, err = s.eng.Act(ctx, askonce.Act{Do: askonce.ActDecline, ID: j.ID})
				want.Source = askonce.SourceDefault
			default:
				_, _, err = s.eng.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: j.ID})
				want.Status, want.ClarificationStatus = askonce.StatusCancelled, askonce.ClarificationAsked
			}
			if err != nil {
				t.Errorf("resolve: %v", err)
				return
			}
			out <- made{j.ID, want}
		})
	}
	wg.Wait()
	close(out)
	if t.Failed() {
		t.FailNow()
	}
	// One more job, resolved by the expiry sweep.
	exp, err := s.eng.Create(context.Background(), askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(askonce.DefaultQuestionTTL)
	if n, err := s.eng.ExpireDue(context.Background()); n != 1 || err != nil {
		t.Fatalf("expire: %d, %v", n, err)
	}
	total := 2 * (jobs + 1)

	deadline := time.Now().Add(10 * time.Second)
	for rcv.ackCount() < total/5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s.close(t)
	stoppedAt := rcv.ackCount()
	t.Logf("acknowledged before the restart: %d of %d", stoppedAt, total)

	openNotifyStack(t, path, rcv.URL)
	waitAcked(t, rcv, total)
	time.Sleep(150 * time.Millisecond) // a duplicate would arrive now

	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.acked) != total {
		t.Errorf("%d ids acknowledged, want %d", len(rcv.acked), total)
	}
	for id, n := range rcv.acked {
		if n != 1 {
			t.Errorf("%s acknowledged %d times", id, n)
		}
	}
	resolved := map[string]ResolvedEvent{}
	for _, q := range rcv.reqs {
		if err := webhook.Verify(secret, q.header, q.body, time.Minute); err != nil {
			t.Errorf("Verify: %v", err)
		}
		var ev ResolvedEvent
		if err := json.Unmarshal(q.body, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "question.resolved" {
			resolved[ev.JobID] = ev
		}
	}
	for m := range out {
		ev, ok := resolved[m.id]
		if !ok {
			t.Errorf("job %s: no question.resolved", m.id)
			continue
		}
		if !ev.At.Equal(m.want.At) {
			t.Errorf("job %s: resolved at %v, want %v", m.id, ev.At, m.want.At)
		}
		ev.At = m.want.At
		if ev != m.want {
			t.Errorf("job %s: resolved %+v, want %+v", m.id, ev, m.want)
		}
	}
	const note = "Nobody answered within 24h; the default “no” was used."
	if ev := resolved[exp.ID]; ev.Status != askonce.StatusPlanning || ev.Source != askonce.SourceTimeout || ev.ExpiryNote != note {
		t.Errorf("expired job with a default: resolved %+v, want planning from the timeout, saying %q", ev, note)
	}
}

// The notification rides the ask's transaction: a hook that fails rolls
// the ask back, and the job stays as it was.
func TestNotifyHookBeforeSetRollsBackTheAsk(t *testing.T) {
	t.Parallel()
	hook := new(Hook)
	st, err := sqlite.Options{OnNotify: hook.Notify}.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := &askonce.Engine{Store: st, Interpreter: asker{}, LinkSecret: st.LinkSecret()}
	_, err = eng.Create(context.Background(), askonce.CreateRequest{Goal: "make cheese"})
	if err == nil {
		t.Fatal("the ask committed without its notification")
	}
	page, err := st.ListJobs(context.Background(), askonce.DefaultTenant, askonce.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Jobs) != 1 || page.Jobs[0].Status != askonce.StatusPlanning {
		t.Fatalf("jobs %+v, want one left planning", page.Jobs)
	}
	if _, err := eng.JobByAnswerToken(context.Background(), eng.AnswerToken(&askonce.Job{
		ID: page.Jobs[0].ID, TenantID: askonce.DefaultTenant, Status: askonce.StatusPending, ClarificationStatus: askonce.ClarificationAsked,
	})); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Errorf("the rolled-back ask left an answer link: %v", err)
	}
}
