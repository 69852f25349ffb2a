package slack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/slack-go/slack/slacktest"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// askingJob is a gate-mode job of a real SQLite store that asks a
// SELECT_ONE question and names to, a Slack channel or user.
func askingJob(t *testing.T, to askonce.SlackRecipient) (*askonce.Engine, *askonce.Job) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &askonce.Engine{Store: st}
	j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "hot frozen cheese", Mode: askonce.ModeGate,
		Notify: &askonce.Recipients{Slack: &to}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Report(t.Context(), "", j.ID, askonce.Report{Question: &askonce.Question{
		Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}}); err != nil {
		t.Fatal(err)
	}
	return e, j
}

// countingSlack is slacktest's server counting chat.postMessage calls;
// status, when not 200, is every call's answer.
func countingSlack(t *testing.T, posts *atomic.Int64, status int, header http.Header) string {
	t.Helper()
	s := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			for k, v := range header {
				w.Header()[k] = v
			}
			if status != http.StatusOK {
				w.WriteHeader(status)
				return
			}
			n := posts.Add(1)
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": "C0123ABCD", "ts": "1700000000.00000" + string(rune('0'+n))})
		})
	})
	s.Start()
	t.Cleanup(s.Stop)
	return s.GetAPIURL()
}

func postJob(j *askonce.Job, attempt int) askonce.Send {
	return askonce.Send{Kind: postKind, TenantID: j.TenantID, JobID: j.ID, Attempt: attempt}
}

// A retried post (the queue runs the send again after a crash or a lost
// completion) finds the stored ts and posts nothing.
func TestRetriedPostSendsNoSecondMessage(t *testing.T) {
	t.Parallel()
	e, j := askingJob(t, askonce.SlackRecipient{Channel: "C0123ABCD"})
	var posts atomic.Int64
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: countingSlack(t, &posts, http.StatusOK, nil)})
	if err != nil {
		t.Fatal(err)
	}
	w := &postWorker{c: c}
	for attempt := 1; attempt <= 3; attempt++ {
		if err := w.Work(t.Context(), postJob(j, attempt)); err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	if n := posts.Load(); n != 1 {
		t.Fatalf("%d messages posted over 3 runs of the post job; want 1", n)
	}
	m, err := e.Message(t.Context(), j.TenantID, j.ID, msgQuestion)
	if err != nil || m.Ref != "C0123ABCD 1700000000.000001" {
		t.Fatalf("stored message %+v, %v; want the channel and ts of the one post", m, err)
	}
}

// A 429 snoozes the job for Slack's Retry-After, instead of a failed try.
func TestRateLimitedPostWaitsForRetryAfter(t *testing.T) {
	t.Parallel()
	e, j := askingJob(t, askonce.SlackRecipient{Channel: "C0123ABCD"})
	var posts atomic.Int64
	url := countingSlack(t, &posts, http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}})
	var failures atomic.Int64
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: url,
		OnSend: func(kind string, err error) {
			if err != nil {
				failures.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	err = (&postWorker{c: c}).Work(t.Context(), postJob(j, 1))
	var snooze *askonce.SendSnoozeError
	if !errors.As(err, &snooze) || snooze.Wait.Seconds() != 7 {
		t.Fatalf("Work = %v; want a snooze of 7s", err)
	}
	if failures.Load() != 1 {
		t.Fatalf("OnSend saw %d failures; want 1", failures.Load())
	}
}

// Slack's "ratelimited" in an HTTP 200 ({"ok":false,"error":"ratelimited"}
// with Retry-After) snoozes the job for its Retry-After as a 429 does,
// instead of using up a delivery try.
func TestRateLimitedIn200WaitsForRetryAfter(t *testing.T) {
	t.Parallel()
	e, j := askingJob(t, askonce.SlackRecipient{Channel: "C0123ABCD"})
	s := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "9")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":false,"error":"ratelimited"}`)
		})
	})
	s.Start()
	t.Cleanup(s.Stop)
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: s.GetAPIURL()})
	if err != nil {
		t.Fatal(err)
	}
	err = (&postWorker{c: c}).Work(t.Context(), postJob(j, 1))
	var snooze *askonce.SendSnoozeError
	if !errors.As(err, &snooze) || snooze.Wait.Seconds() != 9 {
		t.Fatalf("Work = %v; want a snooze of 9s", err)
	}
}

// A post that finds the question settled posts nothing.
func TestPostOfASettledQuestionSendsNothing(t *testing.T) {
	t.Parallel()
	e, j := askingJob(t, askonce.SlackRecipient{Channel: "C0123ABCD"})
	if _, _, err := e.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil {
		t.Fatal(err)
	}
	var posts atomic.Int64
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: countingSlack(t, &posts, http.StatusOK, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&postWorker{c: c}).Work(t.Context(), postJob(j, 1)); err != nil {
		t.Fatal(err)
	}
	if n := posts.Load(); n != 0 {
		t.Fatalf("%d messages posted for a settled question; want 0", n)
	}
}

func TestEscapeNeutralisesMentionsAndLinks(t *testing.T) {
	t.Parallel()
	if got := Escape("<!channel> & <http://evil|click>"); got != "&lt;!channel&gt; &amp; &lt;http://evil|click&gt;" {
		t.Fatalf("Escape = %q", got)
	}
}

// A mention is written only for a whole Slack user id: one with trailing
// characters is escaped text, not a mention.
func TestWhoMentionsOnlyAWholeSlackUserID(t *testing.T) {
	t.Parallel()
	j := &askonce.Job{AnsweredVia: askonce.ViaSlack, AnsweredBy: "U0123ABCD"}
	if got := Who(j); got != "by <@U0123ABCD> in Slack" {
		t.Errorf("Who of a user id = %q; want a mention", got)
	}
	j.AnsweredBy = "U0123ABCD> <!channel>"
	if got := Who(j); strings.Contains(got, "<@") || strings.Contains(got, "<!channel>") {
		t.Errorf("Who of a user id with trailing characters = %q; want escaped text, no mention", got)
	}
}
