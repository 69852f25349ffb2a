package slack

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/askonce/askonce"
)

// historySlack is slacktest's server keeping the messages posted to it,
// as Slack does, for conversations.history (which slacktest lacks): ts
// from the clock, the metadata returned only to include_all_metadata,
// newest first, between oldest and latest, limit a page (the cursor is
// how many came before). loseAnswers makes
// chat.postMessage take the message and answer 500, as a try that died
// before it stored the ts sees it; historyError, when set, is every
// conversations.history's error.
type historySlack struct {
	url          string
	mu           sync.Mutex
	posts        []url.Values
	updates      []url.Values
	history      int
	loseAnswers  bool
	historyError string
	lastPost     time.Time
}

func newHistorySlack(t *testing.T) *historySlack {
	t.Helper()
	f := &historySlack{}
	form := func(r *http.Request) url.Values {
		b, _ := io.ReadAll(r.Body)
		v, _ := url.ParseQuery(string(b))
		return v
	}
	reply := func(w http.ResponseWriter, v map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	s := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			v := form(r)
			f.mu.Lock()
			defer f.mu.Unlock()
			v.Set("channel", dm(v.Get("channel")))
			// Slack's ts is the time it took the message, to the
			// microsecond, unique in the conversation: never before the
			// try that posted it began.
			at := time.Now()
			if !at.After(f.lastPost) {
				at = f.lastPost.Add(time.Microsecond)
			}
			f.lastPost = at
			v.Set("ts", slackTS(at))
			f.posts = append(f.posts, v)
			if f.loseAnswers {
				http.Error(w, "the answer is lost", http.StatusInternalServerError)
				return
			}
			reply(w, map[string]any{"ok": true, "channel": v.Get("channel"), "ts": v.Get("ts")})
		})
		c.Handle("/chat.update", func(w http.ResponseWriter, r *http.Request) {
			v := form(r)
			f.mu.Lock()
			defer f.mu.Unlock()
			f.updates = append(f.updates, v)
			reply(w, map[string]any{"ok": true, "channel": v.Get("channel"), "ts": v.Get("ts")})
		})
		c.Handle("/conversations.open", func(w http.ResponseWriter, r *http.Request) {
			reply(w, map[string]any{"ok": true, "channel": map[string]any{"id": dm(form(r).Get("users"))}})
		})
		c.Handle("/conversations.history", func(w http.ResponseWriter, r *http.Request) {
			v := form(r)
			f.mu.Lock()
			defer f.mu.Unlock()
			f.history++
			if f.historyError != "" {
				reply(w, map[string]any{"ok": false, "error": f.historyError})
				return
			}
			limit, _ := strconv.Atoi(v.Get("limit"))
			skip, _ := strconv.Atoi(v.Get("cursor"))
			oldest, _ := strconv.ParseFloat(v.Get("oldest"), 64)
			latest, _ := strconv.ParseFloat(v.Get("latest"), 64)
			var msgs []map[string]any
			for i := len(f.posts) - 1; i >= 0; i-- {
				p := f.posts[i]
				ts, _ := strconv.ParseFloat(p.Get("ts"), 64)
				if p.Get("channel") != v.Get("channel") || ts < oldest || ts > latest {
					continue
				}
				m := map[string]any{"type": "message", "ts": p.Get("ts"), "text": p.Get("text")}
				if meta := p.Get("metadata"); meta != "" && v.Get("include_all_metadata") == "1" {
					m["metadata"] = json.RawMessage(meta)
				}
				msgs = append(msgs, m)
			}
			page := map[string]any{"ok": true, "has_more": false}
			if msgs = msgs[min(skip, len(msgs)):]; limit > 0 && len(msgs) > limit {
				msgs = msgs[:limit]
				page["has_more"] = true
				page["response_metadata"] = map[string]any{"next_cursor": strconv.Itoa(skip + limit)}
			}
			page["messages"] = msgs
			reply(w, page)
		})
	})
	s.Start()
	t.Cleanup(s.Stop)
	f.url = s.GetAPIURL()
	return f
}

// dm is the conversation Slack posts a message to a user in.
func dm(channel string) string {
	if strings.HasPrefix(channel, "U") {
		return "D" + channel[1:]
	}
	return channel
}

func (f *historySlack) set(loseAnswers bool, historyError string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loseAnswers, f.historyError = loseAnswers, historyError
}

// postsOf returns the messages posted with the metadata of job id.
func (f *historySlack) postsOf(id string) []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []url.Values
	for _, p := range f.posts {
		if strings.Contains(p.Get("metadata"), `"job_id":"`+id+`"`) {
			out = append(out, p)
		}
	}
	return out
}

// asking returns a job that asks and names to as its Slack recipient, and
// the channel's post worker on f.
func asking(t *testing.T, f *historySlack, to askonce.SlackRecipient) (*askonce.Engine, *askonce.Job, *postWorker) {
	t.Helper()
	e, j := askingJob(t, to)
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: f.url})
	if err != nil {
		t.Fatal(err)
	}
	return e, j, &postWorker{c: c}
}

func stored(t *testing.T, e *askonce.Engine, j *askonce.Job) string {
	t.Helper()
	m, err := e.Message(t.Context(), j.TenantID, j.ID, msgQuestion)
	if err != nil {
		t.Fatalf("no stored message: %v", err)
	}
	return m.Ref
}

// A try whose post Slack took but whose answer was lost (the process died
// before it stored the ts) leaves a message; the next try finds it by its
// metadata and stores its ts instead of posting again: in a channel, and
// in a direct message, where the conversation is the one
// conversations.open names.
func TestPostTakenBySlackButNotStoredIsFoundNotPostedAgain(t *testing.T) {
	t.Parallel()
	for _, to := range []askonce.SlackRecipient{{Channel: "C0123ABCD"}, {User: "U0ANN0001"}} {
		t.Run(to.Conversation(), func(t *testing.T) {
			t.Parallel()
			f := newHistorySlack(t)
			e, j, w := asking(t, f, to)
			f.set(true, "")
			if err := w.Work(t.Context(), postJob(j, 1)); err == nil {
				t.Fatal("the try whose answer was lost succeeded")
			}
			f.set(false, "")
			if err := w.Work(t.Context(), postJob(j, 2)); err != nil {
				t.Fatal(err)
			}
			posts := f.postsOf(j.ID)
			if len(posts) != 1 {
				t.Fatalf("%d messages for the job; want 1", len(posts))
			}
			if want := posts[0].Get("channel") + " " + posts[0].Get("ts"); stored(t, e, j) != want {
				t.Fatalf("stored %q; want the one message, %q", stored(t, e, j), want)
			}
		})
	}
}

// The message is found when more messages than a page holds were posted
// after it in the window.
func TestLostPostIsFoundPagesBack(t *testing.T) {
	t.Parallel()
	f := newHistorySlack(t)
	e, j, w := asking(t, f, askonce.SlackRecipient{Channel: "C0123ABCD"})
	f.set(true, "")
	if err := w.Work(t.Context(), postJob(j, 1)); err == nil {
		t.Fatal("the try whose answer was lost succeeded")
	}
	f.set(false, "")
	for range findPage + findPage/2 {
		if _, _, err := w.c.api.PostMessageContext(t.Context(), "C0123ABCD", slackapi.MsgOptionText("chatter", false)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Work(t.Context(), postJob(j, 2)); err != nil {
		t.Fatal(err)
	}
	posts := f.postsOf(j.ID)
	f.mu.Lock()
	calls := f.history
	f.mu.Unlock()
	if len(posts) != 1 || stored(t, e, j) != "C0123ABCD "+posts[0].Get("ts") || calls != 2 {
		t.Fatalf("%d messages of the job, stored %q, %d history pages; want the one, found on the second page", len(posts), stored(t, e, j), calls)
	}
}

// The look matches the job in the metadata: another job's message in
// the window, or one without metadata, is not adopted, and the question
// is posted.
func TestPostAdoptsOnlyTheMessageOfItsJob(t *testing.T) {
	t.Parallel()
	f := newHistorySlack(t)
	e, j, w := asking(t, f, askonce.SlackRecipient{Channel: "C0123ABCD"})
	_, other, ow := asking(t, f, askonce.SlackRecipient{Channel: "C0123ABCD"})
	if err := ow.Work(t.Context(), postJob(other, 1)); err != nil {
		t.Fatal(err)
	}
	// A try of j that began posting and died before Slack took anything.
	if err := w.c.startTry(t.Context(), j, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Work(t.Context(), postJob(j, 2)); err != nil {
		t.Fatal(err)
	}
	posts := f.postsOf(j.ID)
	if len(posts) != 1 || stored(t, e, j) != "C0123ABCD "+posts[0].Get("ts") {
		t.Fatalf("%d messages of the job, stored %q; want one, posted by the second try", len(posts), stored(t, e, j))
	}
}

// A message whose metadata names the job under another tenant is not
// adopted: the try posts the job's own.
func TestPostAdoptsOnlyTheMessageOfItsTenant(t *testing.T) {
	t.Parallel()
	f := newHistorySlack(t)
	e, j, w := asking(t, f, askonce.SlackRecipient{Channel: "C0123ABCD"})
	if err := w.c.startTry(t.Context(), j, 1); err != nil {
		t.Fatal(err)
	}
	forged := slackapi.SlackMetadata{EventType: metadataEvent, EventPayload: map[string]any{"tenant_id": "other", "job_id": j.ID}}
	if _, _, err := w.c.api.PostMessageContext(t.Context(), "C0123ABCD", slackapi.MsgOptionText("forged", false), slackapi.MsgOptionMetadata(forged)); err != nil {
		t.Fatal(err)
	}
	if err := w.Work(t.Context(), postJob(j, 2)); err != nil {
		t.Fatal(err)
	}
	posts := f.postsOf(j.ID)
	if len(posts) != 2 || stored(t, e, j) != "C0123ABCD "+posts[1].Get("ts") {
		t.Fatalf("%d messages naming the job, stored %q; want the forged one and the job's own, stored", len(posts), stored(t, e, j))
	}
}

// The first try looks for nothing: no earlier try began posting.
func TestFirstPostLooksForNothing(t *testing.T) {
	t.Parallel()
	f := newHistorySlack(t)
	_, j, w := asking(t, f, askonce.SlackRecipient{Channel: "C0123ABCD"})
	if err := w.Work(t.Context(), postJob(j, 1)); err != nil {
		t.Fatal(err)
	}
	posts := len(f.postsOf(j.ID))
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.history != 0 || posts != 1 {
		t.Fatalf("%d history calls, %d posts; want 0 and 1", f.history, posts)
	}
}

// A message found for a question that was settled since is adopted and
// updated, so it shows no controls.
func TestFoundMessageOfASettledQuestionIsUpdated(t *testing.T) {
	t.Parallel()
	f := newHistorySlack(t)
	e, j, w := asking(t, f, askonce.SlackRecipient{Channel: "C0123ABCD"})
	f.set(true, "")
	if err := w.Work(t.Context(), postJob(j, 1)); err == nil {
		t.Fatal("the try whose answer was lost succeeded")
	}
	f.set(false, "")
	if _, _, err := e.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Work(t.Context(), postJob(j, 2)); err != nil {
		t.Fatal(err)
	}
	ts := f.postsOf(j.ID)[0].Get("ts")
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.updates) != 1 || f.updates[0].Get("ts") != ts || strings.Contains(f.updates[0].Get("blocks"), `"actions"`) {
		t.Fatalf("updates %v; want one of the message %s, without controls", f.updates, ts)
	}
}

// A failed look is a failed try: nothing is posted while Slack may have
// the message. An app that may not read the history (missing_scope)
// posts again instead, since no retry would mend it.
func TestFailedLookPostsNothingUnlessTheAppCannotRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		historyError string
		wantPosts    int
	}{{"internal_error", 1}, {"missing_scope", 2}} {
		t.Run(tc.historyError, func(t *testing.T) {
			t.Parallel()
			f := newHistorySlack(t)
			_, j, w := asking(t, f, askonce.SlackRecipient{Channel: "C0123ABCD"})
			f.set(true, "")
			if err := w.Work(t.Context(), postJob(j, 1)); err == nil {
				t.Fatal("the try whose answer was lost succeeded")
			}
			f.set(false, tc.historyError)
			err := w.Work(t.Context(), postJob(j, 2))
			if n := len(f.postsOf(j.ID)); n != tc.wantPosts {
				t.Fatalf("%d messages; want %d (Work: %v)", n, tc.wantPosts, err)
			}
			if (err != nil) != (tc.wantPosts == 1) {
				t.Fatalf("Work = %v", err)
			}
		})
	}
}
