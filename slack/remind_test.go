package slack

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack/slacktest"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// recordingSlack is slacktest's server keeping every call to the
// methods the channel makes, by method.
type recordingSlack struct {
	url   string
	mu    sync.Mutex
	calls map[string][]url.Values
}

func newRecordingSlack(t *testing.T) *recordingSlack {
	t.Helper()
	f := &recordingSlack{calls: map[string][]url.Values{}}
	n := 0
	record := func(method string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			f.mu.Lock()
			f.calls[method] = append(f.calls[method], r.PostForm)
			n++
			ts := "1700000000.00000" + strconv.Itoa(n)
			f.mu.Unlock()
			channel := r.PostForm.Get("channel")
			if strings.HasPrefix(channel, "U") {
				channel = "D" + channel[1:] // Slack answers a post to a user with the DM's id
			}
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": channel, "ts": ts})
		}
	}
	s := slacktest.NewTestServer(func(c slacktest.Customize) {
		for _, m := range []string{"chat.postMessage", "chat.update", "chat.postEphemeral"} {
			c.Handle("/"+m, record(m))
		}
	})
	s.Start()
	t.Cleanup(s.Stop)
	f.url = s.GetAPIURL()
	return f
}

func (f *recordingSlack) of(method string) []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.calls[method]...)
}

// reachJob is a gate-mode job asking in C0123ABCD with the given steps
// and answerers, its question posted there, and the channel on f.
func reachJob(t *testing.T, f *recordingSlack, steps []askonce.ReachStep, answerers *askonce.Answerers) (*askonce.Engine, *askonce.Job, *Channel) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &askonce.Engine{Store: st, ReachMinInterval: time.Millisecond, LinkSecret: []byte("0123456789abcdef0123456789abcdef")}
	j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "hot frozen cheese", Mode: askonce.ModeGate,
		Notify: &askonce.Recipients{Slack: &askonce.SlackRecipient{Channel: "C0123ABCD"}, Steps: steps, Answerers: answerers}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = e.Report(t.Context(), "", j.ID, askonce.Report{Question: &askonce.Question{
		Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}}); err != nil {
		t.Fatal(err)
	}
	if j, err = e.Get(t.Context(), j.TenantID, j.ID); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: f.url,
		AnswerURL: func(j *askonce.Job) string { return e.AnswerURL("https://askonce.example.test", j) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(t.Context(), askonce.Send{Kind: postKind, TenantID: j.TenantID, JobID: j.ID, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	return e, j, c
}

func sendAll(t *testing.T, c *Channel, sends []askonce.Send) {
	t.Helper()
	for _, s := range sends {
		s.Attempt = 1
		if err := c.Send(t.Context(), s); err != nil {
			t.Fatalf("send %+v: %v", s, err)
		}
	}
}

func TestRule18_Reach(t *testing.T) {
	t.Parallel()
	t.Run("ReminderIsAReplyInTheQuestionsThreadOnce", func(t *testing.T) {
		t.Parallel()
		f := newRecordingSlack(t)
		_, j, c := reachJob(t, f, []askonce.ReachStep{{After: "30m"}}, nil)
		sends := c.StepSends(j, 1)
		if len(sends) != 1 || sends[0] != (askonce.Send{Kind: remindKind, TenantID: j.TenantID, JobID: j.ID, To: "C0123ABCD", Step: 1}) {
			t.Fatalf("step 1 sends %+v; want one reminder to C0123ABCD", sends)
		}
		sendAll(t, c, sends)
		sendAll(t, c, sends) // a retry
		posts := f.of("chat.postMessage")
		if len(posts) != 2 {
			t.Fatalf("%d posts; want the question and one reminder", len(posts))
		}
		question, reminder := posts[0], posts[1]
		text := reminder.Get("text")
		if reminder.Get("thread_ts") != "1700000000.000001" || reminder.Get("channel") != "C0123ABCD" {
			t.Errorf("reminder posted to %s thread %q; want the question's thread", reminder.Get("channel"), reminder.Get("thread_ts"))
		}
		for _, want := range []string{"waited", "expires <!date^", "https://askonce.example.test/a/"} {
			if !strings.Contains(text, want) {
				t.Errorf("reminder %q lacks %q", text, want)
			}
		}
		if !strings.Contains(question.Get("blocks"), "https://askonce.example.test/a/") {
			t.Errorf("the question message has no answer link")
		}
	})
	t.Run("EscalationPostsTheWholeQuestionAndSettlingUpdatesEveryCopy", func(t *testing.T) {
		t.Parallel()
		f := newRecordingSlack(t)
		e, j, c := reachJob(t, f, []askonce.ReachStep{{After: "2h", Slack: &askonce.SlackRecipient{User: "U0ONCALL01"}}}, nil)
		sends := c.StepSends(j, 1)
		if len(sends) != 1 || sends[0].Kind != escalateKind || sends[0].To != "U0ONCALL01" {
			t.Fatalf("step 1 sends %+v; want an escalation to U0ONCALL01", sends)
		}
		sendAll(t, c, sends)
		sendAll(t, c, sends)
		posts := f.of("chat.postMessage")
		if len(posts) != 2 || posts[1].Get("channel") != "U0ONCALL01" || !strings.Contains(posts[1].Get("blocks"), jobRef(j.TenantID, j.ID)) {
			t.Fatalf("posts %v; want the question, then the question with its controls to U0ONCALL01, once", posts)
		}
		ctx := askonce.WithAnswerer(t.Context(), askonce.Answerer{Via: askonce.ViaSlack, By: "U0ONCALL01"})
		j, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("frozen")})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.Sends(j, askonce.QuestionResolved) {
			if s.Kind == settleKind {
				sendAll(t, c, []askonce.Send{s})
			}
		}
		updates := f.of("chat.update")
		got := map[string]string{}
		for _, u := range updates {
			got[u.Get("channel")] = u.Get("text")
		}
		for _, ch := range []string{"C0123ABCD", "D0ONCALL01"} {
			if !strings.Contains(got[ch], "frozen") || !strings.Contains(got[ch], "<@U0ONCALL01>") {
				t.Errorf("update of the copy in %s: %q; want who answered and what", ch, got[ch])
			}
		}
		// A reminder of the answered question sends nothing.
		sendAll(t, c, []askonce.Send{{Kind: remindKind, TenantID: j.TenantID, JobID: j.ID, To: "C0123ABCD", Step: 1}})
		if n := len(f.of("chat.postMessage")); n != 2 {
			t.Errorf("%d posts after a reminder of an answered question; want still 2", n)
		}
	})
	t.Run("AnswerFromSomeoneNotAmongTheAnswerersIsRefusedAndDoesNotSpendTheQuestion", func(t *testing.T) {
		t.Parallel()
		f := newRecordingSlack(t)
		e, j, c := reachJob(t, f, nil, &askonce.Answerers{Slack: []string{"U0ALICE01"}})
		click := func(user string) {
			w := httptest.NewRecorder()
			c.Handler().ServeHTTP(w, signedInteraction(t, map[string]any{
				"type": "block_actions", "trigger_id": "T.trigger", "user": map[string]any{"id": user},
				"channel":   map[string]any{"id": "C0123ABCD"},
				"container": map[string]any{"type": "message", "channel_id": "C0123ABCD"},
				"actions":   []map[string]any{{"action_id": actionOption + "_1", "block_id": jobRef(j.TenantID, j.ID), "value": optionValue(1)}},
			}, "s"))
			if w.Code != http.StatusOK {
				t.Fatalf("interaction: %d %s", w.Code, w.Body)
			}
		}
		click("U0MALLORY1")
		waitUntil(t, "the refusal", func() bool { return len(f.of("chat.postEphemeral")) == 1 })
		eph := f.of("chat.postEphemeral")[0]
		if eph.Get("user") != "U0MALLORY1" || !strings.Contains(eph.Get("text"), "<@U0ALICE01>") {
			t.Errorf("refusal %v; want one to U0MALLORY1 naming who may answer", eph)
		}
		got, err := e.Get(t.Context(), j.TenantID, j.ID)
		if err != nil || got.Status != askonce.StatusPending {
			t.Fatalf("job after a refused click: %+v, %v; want still pending", got, err)
		}
		evs, _ := e.Events(t.Context(), j.TenantID, j.ID, 0, 0)
		refused := 0
		for _, ev := range evs {
			if ev.Type == askonce.EventAnswerRefused && strings.Contains(string(ev.Data), "U0MALLORY1") {
				refused++
			}
		}
		if refused != 1 {
			t.Errorf("%d answer_refused events naming U0MALLORY1; want 1", refused)
		}
		click("U0ALICE01")
		waitUntil(t, "alice's answer", func() bool {
			got, err := e.Get(t.Context(), j.TenantID, j.ID)
			return err == nil && got.Status != askonce.StatusPending
		})
		got, _ = e.Get(t.Context(), j.TenantID, j.ID)
		if got.AnsweredBy != "U0ALICE01" || got.Answer.String() != "frozen" {
			t.Errorf("answered %q by %q; want frozen by U0ALICE01", got.Answer, got.AnsweredBy)
		}
	})
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
