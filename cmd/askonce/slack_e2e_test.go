package main_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slack-go/slack/slacktest"
)

const slackSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// slackCall is one Web API call the fake Slack received.
type slackCall struct {
	method string
	form   url.Values
}

// blocks decodes the call's blocks.
func (c slackCall) blocks(t *testing.T) []map[string]any {
	t.Helper()
	var b []map[string]any
	if s := c.form.Get("blocks"); s != "" {
		if err := json.Unmarshal([]byte(s), &b); err != nil {
			t.Fatalf("%s blocks are not JSON: %v\n%s", c.method, err, s)
		}
	}
	return b
}

// fakeSlack is slacktest's server with the calls askonce makes recorded:
// chat.postMessage, chat.update, chat.postEphemeral and views.open; and
// the Slack methods slacktest lacks, answered from what was posted:
// conversations.history (newest first, between oldest and latest, the
// metadata only to include_all_metadata) and conversations.open.
type fakeSlack struct {
	srv   *slacktest.Server
	mu    sync.Mutex
	calls []slackCall
	ts    int
	// down answers every call with 500 while set.
	down bool
	// hold, when set, is told of the next chat.postMessage once it is
	// recorded, and the call gets no answer until its client goes away.
	hold chan<- slackCall
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{}
	record := func(method string) func(slacktest.Customize) {
		return func(c slacktest.Customize) {
			c.Handle("/"+method, func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				form, _ := url.ParseQuery(string(body))
				if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
					form = url.Values{"json": {string(body)}}
				}
				f.mu.Lock()
				defer f.mu.Unlock()
				if f.down {
					http.Error(w, "slack is down", http.StatusInternalServerError)
					return
				}
				f.ts++
				// Slack's ts: the time it took the message, unique in
				// its conversation.
				ts := fmt.Sprintf("%d.%06d", time.Now().Unix(), f.ts)
				form.Set("ts", cmpOr(form.Get("ts"), ts))
				call := slackCall{method, form}
				f.calls = append(f.calls, call)
				if hold := f.hold; hold != nil && method == "chat.postMessage" {
					f.hold = nil
					f.mu.Unlock()
					hold <- call
					<-r.Context().Done()
					f.mu.Lock()
					return
				}
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": dm(form.Get("channel")), "ts": form.Get("ts"),
					"message_ts": ts, "view": map[string]any{"id": "V1"}})
			})
		}
	}
	answer := func(method string, reply func(form url.Values) map[string]any) func(slacktest.Customize) {
		return func(c slacktest.Customize) {
			c.Handle("/"+method, func(w http.ResponseWriter, r *http.Request) {
				r.ParseForm()
				f.mu.Lock()
				defer f.mu.Unlock()
				if f.down {
					http.Error(w, "slack is down", http.StatusInternalServerError)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(reply(r.PostForm))
			})
		}
	}
	history := answer("conversations.history", func(q url.Values) map[string]any {
		oldest, _ := strconv.ParseFloat(q.Get("oldest"), 64)
		latest, _ := strconv.ParseFloat(cmpOr(q.Get("latest"), "1e12"), 64)
		msgs := []map[string]any{}
		for i := len(f.calls) - 1; i >= 0; i-- {
			c := f.calls[i]
			ts, _ := strconv.ParseFloat(c.form.Get("ts"), 64)
			if c.method != "chat.postMessage" || c.form.Get("thread_ts") != "" || dm(c.form.Get("channel")) != q.Get("channel") || ts < oldest || ts > latest {
				continue
			}
			m := map[string]any{"type": "message", "ts": c.form.Get("ts"), "text": c.form.Get("text")}
			if meta := c.form.Get("metadata"); meta != "" && q.Get("include_all_metadata") == "1" {
				m["metadata"] = json.RawMessage(meta)
			}
			msgs = append(msgs, m)
		}
		return map[string]any{"ok": true, "messages": msgs, "has_more": false}
	})
	open := answer("conversations.open", func(q url.Values) map[string]any {
		return map[string]any{"ok": true, "channel": map[string]any{"id": dm(q.Get("users"))}}
	})
	f.srv = slacktest.NewTestServer(record("chat.postMessage"), record("chat.update"), record("chat.postEphemeral"), record("views.open"), history, open)
	f.srv.Start()
	t.Cleanup(f.srv.Stop)
	return f
}

// dm is the conversation Slack posts to for channel: a user's direct
// message has an id of its own.
func dm(channel string) string {
	if strings.HasPrefix(channel, "U") {
		return "D" + channel[1:]
	}
	return channel
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// holdNextPost makes the next chat.postMessage hang, recorded, until its
// client goes away; the call comes on the channel once recorded.
func (f *fakeSlack) holdNextPost() <-chan slackCall {
	held := make(chan slackCall, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = held
	return held
}

func (f *fakeSlack) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// find returns the calls of method whose form matches keep.
func (f *fakeSlack) find(method string, keep func(url.Values) bool) []slackCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []slackCall
	for _, c := range f.calls {
		if c.method == method && (keep == nil || keep(c.form)) {
			out = append(out, c)
		}
	}
	return out
}

// posted waits for the job's one question message and returns it.
func (f *fakeSlack) posted(t *testing.T, id string) slackCall {
	t.Helper()
	eventually(t, "the question message", func() bool { return len(f.question("default", id)) == 1 })
	return f.question("default", id)[0]
}

// question is the chat.postMessage of the job with that block_id.
func (f *fakeSlack) question(tenant, id string) []slackCall {
	return f.find("chat.postMessage", func(v url.Values) bool {
		return strings.Contains(v.Get("blocks"), `"askonce|`+tenant+`|`+id+`"`)
	})
}

func startWithSlack(t *testing.T, f *fakeSlack, extra ...string) *instance {
	return startWithSlackOn(t, f, filepath.Join(t.TempDir(), "a.db"), extra...)
}

// startWithSlackOn is startWithSlack on the database db. When the test
// ends, the server's log must hold neither the bot token nor the signing
// secret.
func startWithSlackOn(t *testing.T, f *fakeSlack, db string, extra ...string) *instance {
	in := start(t, []string{"ASKONCE_SLACK_BOT_TOKEN=" + slackToken, "ASKONCE_SLACK_SIGNING_SECRET=" + slackSecret},
		append([]string{"--db", db, "--slack-api-url", f.srv.GetAPIURL(),
			"--slack-channel", "C0123ABCD", "--delivery-backoff", "50ms"}, extra...)...)
	t.Cleanup(func() {
		if logs := in.logs.String(); strings.Contains(logs, slackToken) || strings.Contains(logs, slackSecret) {
			t.Errorf("the server's log holds the Slack bot token or signing secret")
		}
	})
	return in
}

const slackToken = "xoxb-test-token"

// sign returns the headers Slack sends with body at time at.
func sign(body string, at time.Time, secret string) http.Header {
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", ts)
	h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	return h
}

// interact posts an interaction payload, signed with header.
func interact(t *testing.T, in *instance, payload any, header func(body string) http.Header) (int, []byte) {
	t.Helper()
	p, _ := json.Marshal(payload)
	body := url.Values{"payload": {string(p)}}.Encode()
	return postInteraction(t, in, body, header(body))
}

func signedNow(body string) http.Header { return sign(body, time.Now(), slackSecret) }

// click is a block_actions payload: user clicks the action of the
// message of job.
func click(tenant, id, user, actionID, value string) map[string]any {
	return map[string]any{
		"type": "block_actions", "trigger_id": "T.trigger", "user": map[string]any{"id": user},
		"channel":   map[string]any{"id": "C0123ABCD"},
		"container": map[string]any{"type": "message", "channel_id": "C0123ABCD"},
		"actions":   []map[string]any{{"block_id": "askonce|" + tenant + "|" + id, "action_id": actionID, "value": value, "type": "button"}},
	}
}

// actionsOf returns the action elements of a message's actions block.
func actionsOf(blocks []map[string]any) []map[string]any {
	for _, b := range blocks {
		if b["type"] == "actions" {
			var out []map[string]any
			for _, e := range b["elements"].([]any) {
				out = append(out, e.(map[string]any))
			}
			return out
		}
	}
	return nil
}

// textOf is every text of the blocks, decoded, one per line.
func textOf(blocks []map[string]any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if s, ok := v["text"].(string); ok {
				b.WriteString(s + "\n")
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, bl := range blocks {
		walk(bl)
	}
	return b.String()
}

func gateJob(t *testing.T, in *instance, question map[string]any) string {
	t.Helper()
	r := in.do("POST", "/jobs", map[string]any{"goal": "make <!channel> *bold* & cheese", "mode": "gate"})
	id := str(r.body, "jobId")
	if rep := in.do("POST", "/jobs/"+id+"/report", map[string]any{"question": question}); rep.status != 200 {
		t.Fatalf("report question: %d %s", rep.status, rep.raw)
	}
	return id
}

// TestSlack: the Slack channel against a fake Slack Web API: the message,
// signed clicks, the modal, outages, updates when a job settles elsewhere.
func TestSlack(t *testing.T) {
	t.Parallel()
	t.Run("PostsOneMessageWithTheControlsOfEachQuestionType", slackPostsOneMessageWithTheControlsOfEachQuestionType)
	t.Run("SignedClickAnswersAndUpdatesTheMessage", slackSignedClickAnswersAndUpdatesTheMessage)
	t.Run("RacingClicksHaveOneWinner", slackRacingClicksHaveOneWinner)
	t.Run("ModalAnswerIsValidatedInTheModal", slackModalAnswerIsValidatedInTheModal)
	t.Run("ModalOfAQuestionWithFieldsHasAnInputPerField", slackModalOfAQuestionWithFieldsHasAnInputPerField)
	t.Run("ModalInputsAreTypedAndTheirValuesArriveTyped", slackModalInputsAreTypedAndTheirValuesArriveTyped)
	t.Run("OutageNeverBlocksAskingOrAnswering", slackOutageNeverBlocksAskingOrAnswering)
	t.Run("DontRememberKeepsTheAnswerOutOfProjectMemory", slackDontRememberKeepsTheAnswerOutOfProjectMemory)
	t.Run("QuestionCutOffByAKillIsNotPostedTwice", slackQuestionCutOffByAKillIsNotPostedTwice)
	t.Run("MessageUpdatedWhenSettledOutsideSlack", slackMessageUpdatedWhenSettledOutsideSlack)
	t.Run("MessageUpdatedWhenTheQuestionExpires", slackMessageUpdatedWhenTheQuestionExpires)
	t.Run("DeclineAndCancelButtons", slackDeclineAndCancelButtons)
	t.Run("ReplayedInteractionChangesNothing", slackReplayedInteractionChangesNothing)
	t.Run("ModalButtonOnASettledJobSaysItIsSettled", slackModalButtonOnASettledJobSaysItIsSettled)
	t.Run("MentionsInTheGoalOrAnswerAreEscapedEverywhere", slackMentionsInTheGoalOrAnswerAreEscapedEverywhere)
	t.Run("ClickOnAnOptionPastTheEndLeavesTheJobPending", slackClickOnAnOptionPastTheEndLeavesTheJobPending)
	t.Run("ModalAnswerForAnUnknownJobSaysItIsGone", slackModalAnswerForAnUnknownJobSaysItIsGone)
	t.Run("InteractionsPathAnswers405ToGet", slackInteractionsPathAnswers405ToGet)
}

func slackPostsOneMessageWithTheControlsOfEachQuestionType(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	seven := []string{"a", "b", "c", "d", "e", "f", "g"}
	for _, tc := range []struct {
		name     string
		question map[string]any
		want     []string // the elements' action_id or type, in order
	}{
		{"ConfirmIsYesNoButtons", map[string]any{"type": "CONFIRM", "text": "Overwrite?"}, []string{"option_0", "option_1", "decline", "cancel", "link"}},
		{"FewOptionsAreButtonsAndOther", map[string]any{"type": "SELECT_ONE", "text": "Hot or frozen?", "options": []string{"hot", "frozen"}, "allowOther": true, "default": "hot"},
			[]string{"option_0", "option_1", "modal", "decline", "cancel", "link"}},
		{"ManyOptionsAreAStaticSelect", map[string]any{"type": "SELECT_ONE", "text": "Which?", "options": seven}, []string{"select", "decline", "cancel", "link"}},
		{"FreeTextOpensAModal", map[string]any{"type": "FREE_TEXT", "text": "Name it"}, []string{"modal", "decline", "cancel", "link"}},
		{"TargetFileOpensAModal", map[string]any{"type": "TARGET_FILE", "text": "Which file?", "options": []string{"a.go", "b.go"}}, []string{"modal", "decline", "cancel", "link"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := gateJob(t, in, tc.question)
			eventually(t, "the question message", func() bool { return len(f.question("default", id)) > 0 })
			msgs := f.question("default", id)
			if len(msgs) != 1 || msgs[0].form.Get("channel") != "C0123ABCD" {
				t.Fatalf("%d messages (channel %q); want one in C0123ABCD", len(msgs), msgs[0].form.Get("channel"))
			}
			blocks := msgs[0].blocks(t)
			var got []string
			for _, e := range actionsOf(blocks) {
				got = append(got, e["action_id"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("controls %v; want %v\n%s", got, tc.want, msgs[0].form.Get("blocks"))
			}
			// Hostile text: the goal goes in plain_text, never mrkdwn.
			raw := msgs[0].form.Get("blocks")
			if !strings.Contains(raw, `{"type":"plain_text","text":"make \u003c!channel\u003e *bold* \u0026 cheese"`) {
				t.Errorf("the goal is not plain text:\n%s", raw)
			}
		})
	}
}

func slackSignedClickAnswersAndUpdatesTheMessage(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	id := str(r.body, "jobId")
	f.posted(t, id)

	// Forged and stale clicks are 401 and change nothing.
	if code, _ := interact(t, in, click("default", id, "U0EVE0001", "option_1", "o:1"), func(b string) http.Header { return sign(b, time.Now(), "wrong-secret") }); code != 401 {
		t.Errorf("bad signature: %d; want 401", code)
	}
	if code, _ := interact(t, in, click("default", id, "U0EVE0001", "option_1", "o:1"), func(b string) http.Header { return sign(b, time.Now().Add(-6*time.Minute), slackSecret) }); code != 401 {
		t.Errorf("stale timestamp: %d; want 401", code)
	}
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "status") != "pending" {
		t.Fatalf("after forged clicks the job is %s; want pending", str(j.body, "status"))
	}

	if code, raw := interact(t, in, click("default", id, "U0ANN0001", "option_1", "o:1"), signedNow); code != 200 {
		t.Fatalf("signed click: %d %s", code, raw)
	}
	eventually(t, "the job answered frozen", func() bool {
		j := in.do("GET", "/jobs/"+id, nil)
		return str(j.body, "clarificationAnswer") == "frozen" && str(j.body, "status") == "success"
	})
	// Who answered and where: on the job and in its answered event.
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "answeredVia") != "slack" || str(j.body, "answeredBy") != "U0ANN0001" {
		t.Errorf("answeredVia %q, answeredBy %q; want slack, U0ANN0001", str(j.body, "answeredVia"), str(j.body, "answeredBy"))
	}
	if ev := in.do("GET", "/jobs/"+id+"/events", nil); !strings.Contains(string(ev.raw), `"answeredVia":"slack","answeredBy":"U0ANN0001"`) {
		t.Errorf("no answered event with who answered:\n%s", ev.raw)
	}
	eventually(t, "the message updated with who answered and no controls", func() bool {
		for _, u := range f.find("chat.update", nil) {
			if strings.Contains(textOf(u.blocks(t)), "<@U0ANN0001> in Slack") && actionsOf(u.blocks(t)) == nil {
				return true
			}
		}
		return false
	})
	eventually(t, "the outcome in the thread", func() bool {
		return len(f.find("chat.postMessage", func(v url.Values) bool {
			return v.Get("thread_ts") != "" && strings.Contains(v.Get("text"), "Planned")
		})) == 1
	})
	// A click on the settled message: an ephemeral, and nothing changes.
	if code, _ := interact(t, in, click("default", id, "U0BOB0001", "option_0", "o:0"), signedNow); code != 200 {
		t.Fatalf("late click: %d", code)
	}
	eventually(t, "the ephemeral to the late clicker", func() bool {
		return len(f.find("chat.postEphemeral", func(v url.Values) bool {
			return v.Get("user") == "U0BOB0001" && strings.Contains(v.Get("text"), "Already settled") && strings.Contains(v.Get("text"), "<@U0ANN0001>")
		})) == 1
	})
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "clarificationAnswer") != "frozen" {
		t.Fatalf("the late click changed the answer to %q", str(j.body, "clarificationAnswer"))
	}
}

func slackRacingClicksHaveOneWinner(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	id := str(r.body, "jobId")
	f.posted(t, id)
	var wg sync.WaitGroup
	users := []string{"U0ANN0001", "U0BOB0001"}
	for i, u := range users {
		wg.Go(func() {
			if code, raw := interact(t, in, click("default", id, u, fmt.Sprintf("option_%d", i), fmt.Sprintf("o:%d", i)), signedNow); code != 200 {
				t.Errorf("click of %s: %d %s", u, code, raw)
			}
		})
	}
	wg.Wait()
	eventually(t, "one winner and one ephemeral to the loser", func() bool {
		return len(f.find("chat.postEphemeral", nil)) == 1
	})
	j := in.do("GET", "/jobs/"+id, nil)
	answer := str(j.body, "clarificationAnswer")
	loser := f.find("chat.postEphemeral", nil)[0].form.Get("user")
	winner := map[string]string{"hot": "U0ANN0001", "frozen": "U0BOB0001"}[answer]
	if winner == "" || winner == loser {
		t.Fatalf("answer %q, ephemeral to %s: want one winner and the other told", answer, loser)
	}
	events := in.do("GET", "/jobs/"+id+"/events", nil)
	n := strings.Count(string(events.raw), `"type":"answered"`)
	if n != 1 {
		t.Fatalf("%d answered events; want 1\n%s", n, events.raw)
	}
}

func slackModalAnswerIsValidatedInTheModal(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	id := gateJob(t, in, map[string]any{"type": "FREE_TEXT", "text": "Name it"})
	f.posted(t, id)
	if code, _ := interact(t, in, click("default", id, "U0ANN0001", "modal", ""), signedNow); code != 200 {
		t.Fatalf("modal click: %d", code)
	}
	eventually(t, "views.open with the job", func() bool {
		return len(f.find("views.open", func(v url.Values) bool {
			return strings.Contains(v.Get("json"), `askonce|default|`+id) && strings.Contains(v.Get("json"), `"multiline":true`)
		})) == 1
	})
	submit := func(answer string) (int, []byte) {
		return interact(t, in, map[string]any{
			"type": "view_submission", "user": map[string]any{"id": "U0ANN0001"},
			"view": map[string]any{"callback_id": "askonce_answer", "private_metadata": "askonce|default|" + id,
				"state": map[string]any{"values": map[string]any{"answer": map[string]any{"answer": map[string]any{"type": "plain_text_input", "value": answer}}}}},
		}, signedNow)
	}
	code, raw := submit("   ")
	var resp struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(raw, &resp); code != 200 || err != nil || resp.Action != "errors" || resp.Errors["answer"] == "" {
		t.Fatalf("blank answer: %d %s; want response_action errors on the answer input", code, raw)
	}
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "status") != "pending" {
		t.Fatalf("after an invalid answer the job is %s; want pending", str(j.body, "status"))
	}
	if code, raw := submit("Cheddar <b>"); code != 200 || len(strings.TrimSpace(string(raw))) != 0 {
		t.Fatalf("valid answer: %d %s; want 200 with no body (the modal closes)", code, raw)
	}
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "clarificationAnswer") != "Cheddar <b>" {
		t.Fatalf("answer %q; want the modal's", str(j.body, "clarificationAnswer"))
	}
}

// Answer… (or Other…) on a settled question opens no modal: the clicker
// is told, alone, that it is settled.
func slackModalButtonOnASettledJobSaysItIsSettled(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	id := gateJob(t, in, map[string]any{"type": "FREE_TEXT", "text": "Name it"})
	f.posted(t, id)
	if r := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "Cheddar"}); r.status != 200 {
		t.Fatalf("answer: %d %s", r.status, r.raw)
	}
	if code, _ := interact(t, in, click("default", id, "U0BOB0001", "modal", ""), signedNow); code != 200 {
		t.Fatalf("modal click: %d", code)
	}
	eventually(t, "the ephemeral saying the question is settled", func() bool {
		return len(f.find("chat.postEphemeral", func(v url.Values) bool {
			return v.Get("user") == "U0BOB0001" && strings.Contains(v.Get("text"), "Already settled")
		})) == 1
	})
	if n := len(f.find("views.open", nil)); n != 0 {
		t.Fatalf("views.open called %d times for a settled question; want none", n)
	}
}

// A goal or an answer holding <!channel> or <@U…> is escaped in every
// text Slack reads as mrkdwn: chat.postMessage's text (not only its
// blocks) and chat.update's text and blocks (plain_text blocks show it
// as written).
func slackMentionsInTheGoalOrAnswerAreEscapedEverywhere(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	id := gateJob(t, in, map[string]any{"type": "FREE_TEXT", "text": "Name it <@U0EVIL0001>"})
	post := f.posted(t, id)
	if r := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "<!channel> and <@U0EVIL0001>"}); r.status != 200 {
		t.Fatalf("answer: %d %s", r.status, r.raw)
	}
	eventually(t, "the message updated with the answer", func() bool { return len(f.find("chat.update", nil)) > 0 })
	sent := []string{post.form.Get("text")}
	var mrkdwn func(v any)
	mrkdwn = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "mrkdwn" {
				sent = append(sent, fmt.Sprint(v["text"]))
			}
			for _, x := range v {
				mrkdwn(x)
			}
		case []any:
			for _, x := range v {
				mrkdwn(x)
			}
		}
	}
	for _, u := range append(f.find("chat.update", nil), post) {
		sent = append(sent, u.form.Get("text"))
		for _, b := range u.blocks(t) {
			mrkdwn(b)
		}
	}
	for _, text := range sent {
		for _, mention := range []string{"<!channel>", "<@U0EVIL0001>"} {
			if strings.Contains(text, mention) {
				t.Errorf("a mrkdwn text sent to Slack holds %s unescaped: %s", mention, text)
			}
		}
	}
}

// A signed click naming an option index past the end answers nothing: the
// job stays pending and the server goes on serving.
func slackClickOnAnOptionPastTheEndLeavesTheJobPending(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	id := gateJob(t, in, map[string]any{"type": "SELECT_ONE", "text": "Which?", "options": []string{"hot", "frozen"}})
	f.posted(t, id)
	for _, v := range []string{"o:2", "o:-1", "o:x"} {
		if code, _ := interact(t, in, click("default", id, "U0ANN0001", "option_0", v), signedNow); code != 200 {
			t.Fatalf("click %s: %d", v, code)
		}
	}
	eventually(t, "the three clicks logged as unknown options", func() bool {
		return strings.Count(in.logs.String(), "slack: click with an unknown option") == 3
	})
	if j := in.do("GET", "/jobs/"+id, nil); j.status != 200 || str(j.body, "status") != "pending" {
		t.Fatalf("after clicks past the options: %d %s; want the job pending", j.status, j.raw)
	}
}

// A modal answer for a job askonce does not have (removed, or from another
// askonce) says so in the modal, instead of inviting a retry that cannot
// work.
func slackModalAnswerForAnUnknownJobSaysItIsGone(t *testing.T) {
	t.Parallel()
	in := startWithSlack(t, newFakeSlack(t))
	const id = "01J00000000000000000000000"
	code, raw := interact(t, in, map[string]any{
		"type": "view_submission", "user": map[string]any{"id": "U0ANN0001"},
		"view": map[string]any{"callback_id": "askonce_answer", "private_metadata": "askonce|default|" + id,
			"state": map[string]any{"values": map[string]any{"answer": map[string]any{"answer": map[string]any{"type": "plain_text_input", "value": "Cheddar"}}}}},
	}, signedNow)
	var resp struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(raw, &resp); code != 200 || err != nil || resp.Action != "errors" {
		t.Fatalf("modal answer for an unknown job: %d %s; want response_action errors", code, raw)
	}
	if msg := resp.Errors["answer"]; strings.Contains(msg, "try again") || !strings.Contains(msg, "no longer has this question") {
		t.Fatalf("modal error for an unknown job: %q; want it to say the question is gone, without inviting a retry", msg)
	}
}

// GET /slack/interactions is 405 with Allow: POST, as any path asked with
// a method it is not served for.
func slackInteractionsPathAnswers405ToGet(t *testing.T) {
	t.Parallel()
	in := startWithSlack(t, newFakeSlack(t))
	r := in.do("GET", "/slack/interactions", nil)
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
		t.Fatalf("GET /slack/interactions: %d Allow %q; want 405 with Allow: POST", r.status, r.header.Get("Allow"))
	}
}

// Slack down: the job still asks, its answer link still works, and the
// failed sends show in the metric; the message goes out once Slack is back.
func slackOutageNeverBlocksAskingOrAnswering(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	f.setDown(true)
	in := startWithSlack(t, f)
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	id, link := str(r.body, "jobId"), str(r.body, "answerUrl")
	if r.status != 201 || str(r.body, "status") != "pending" || link == "" {
		t.Fatalf("create with Slack down: %d %s", r.status, r.raw)
	}
	eventually(t, "failed sends in the metric", func() bool {
		m := in.do("GET", "/metrics", nil)
		return strings.Contains(string(m.raw), `askonce_channel_sends_total{channel="slack",kind="post",outcome="error"}`)
	})
	page, err := http.Get(link)
	if err != nil || page.StatusCode != 200 {
		t.Fatalf("answer page with Slack down: %v %v", err, page)
	}
	page.Body.Close()
	eventually(t, "a notify_failed event on the job", func() bool {
		ev := in.do("GET", "/jobs/"+id+"/events", nil)
		return strings.Contains(string(ev.raw), `"type":"notify_failed"`) && strings.Contains(string(ev.raw), `"channel":"slack"`)
	})
	f.setDown(false)
	eventually(t, "the message once Slack is back", func() bool { return len(f.question("default", id)) == 1 })
	eventually(t, "a notified event on the job", func() bool {
		return strings.Contains(string(in.do("GET", "/jobs/"+id+"/events", nil).raw), `"type":"notified"`)
	})
}

// withRemember adds to a click the message's state with the "Don't
// remember this answer" checkbox ticked, as Slack sends it.
func withRemember(p map[string]any) map[string]any {
	p["state"] = map[string]any{"values": map[string]any{"askonce_remember": map[string]any{
		"dont_remember": map[string]any{"type": "checkboxes", "selected_options": []map[string]any{{"value": "1"}}}}}}
	return p
}

// A project-scoped job answered from Slack with "Don't remember this
// answer" ticked (on the message or in the modal) leaves no project
// memory, so the next agent of the project is asked; unticked, the answer
// is remembered and the next agent is answered from it. A session job's
// message has no checkbox.
func slackDontRememberKeepsTheAnswerOutOfProjectMemory(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	job := func(session string, fresh bool) string {
		t.Helper()
		r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "sessionId": session,
			"memory": map[string]any{"scope": "project", "project": "shop <b>", "fresh": fresh}})
		if r.status != 201 {
			t.Fatalf("create: %d %s", r.status, r.raw)
		}
		return str(r.body, "jobId")
	}
	memory := func() []string {
		t.Helper()
		var out []string
		entries, _ := in.do("GET", "/memory?scope=project&project="+url.QueryEscape("shop <b>"), nil).body["entries"].([]any)
		for _, e := range entries {
			out = append(out, str(e.(map[string]any), "answer"))
		}
		return out
	}
	settled := func(id, answer string) {
		t.Helper()
		eventually(t, "job "+id+" answered "+answer, func() bool {
			j := in.do("GET", "/jobs/"+id, nil)
			return str(j.body, "clarificationAnswer") == answer && str(j.body, "status") == "success"
		})
	}

	session := gateJob(t, in, map[string]any{"type": "CONFIRM", "text": "Overwrite?"})
	eventually(t, "the session job's message", func() bool { return len(f.question("default", session)) == 1 })
	if raw := f.question("default", session)[0].form.Get("blocks"); strings.Contains(raw, "dont_remember") {
		t.Errorf("a session job's message offers don't remember, which would change nothing:\n%s", raw)
	}

	a := job("agent-a", false)
	eventually(t, "the question message", func() bool { return len(f.question("default", a)) == 1 })
	raw := f.question("default", a)[0].form.Get("blocks")
	if !strings.Contains(raw, `"action_id":"dont_remember"`) || !strings.Contains(raw, `"text":"Otherwise the other agents of project “shop \u003cb\u003e” get it without asking."`) {
		t.Fatalf("no don't-remember checkbox naming the project in plain text:\n%s", raw)
	}
	if code, raw := interact(t, in, withRemember(click("default", a, "U0ANN0001", "option_1", "o:1")), signedNow); code != 200 {
		t.Fatalf("click: %d %s", code, raw)
	}
	settled(a, "frozen")
	if m := memory(); len(m) != 0 {
		t.Fatalf("project memory after an answer ticked don't remember: %v; want none", m)
	}

	b := job("agent-b", false)
	if j := in.do("GET", "/jobs/"+b, nil); str(j.body, "status") != "pending" {
		t.Fatalf("the next agent of the project is %s (%s); want pending, asked", str(j.body, "status"), str(j.body, "clarificationSource"))
	}
	eventually(t, "the second question message", func() bool { return len(f.question("default", b)) == 1 })
	if code, raw := interact(t, in, click("default", b, "U0ANN0001", "option_1", "o:1"), signedNow); code != 200 {
		t.Fatalf("click: %d %s", code, raw)
	}
	settled(b, "frozen")
	if m := memory(); len(m) != 1 || m[0] != "frozen" {
		t.Fatalf("project memory after an answer without the box: %v; want [frozen]", m)
	}
	if j := in.do("GET", "/jobs/"+job("agent-c", false), nil); str(j.body, "clarificationSource") != "history" {
		t.Fatalf("the next agent: %s; want answered from the project's memory", j.raw)
	}

	// The modal: opened with the box ticked on the message, it shows it
	// ticked, and its submission with the box ticked is not remembered.
	d := job("agent-d", true)
	eventually(t, "the fresh job's message", func() bool { return len(f.question("default", d)) == 1 })
	if code, _ := interact(t, in, withRemember(click("default", d, "U0ANN0001", "modal", "")), signedNow); code != 200 {
		t.Fatalf("modal click: %d", code)
	}
	eventually(t, "views.open with the box ticked", func() bool {
		return len(f.find("views.open", func(v url.Values) bool {
			return strings.Contains(v.Get("json"), `askonce|default|`+d) && strings.Contains(v.Get("json"), `"initial_options":[{"text":{"type":"plain_text","text":"Don't remember this answer"`)
		})) == 1
	})
	code, body := interact(t, in, map[string]any{
		"type": "view_submission", "user": map[string]any{"id": "U0ANN0001"},
		"view": map[string]any{"callback_id": "askonce_answer", "private_metadata": "askonce|default|" + d,
			"state": map[string]any{"values": map[string]any{
				"answer":           map[string]any{"answer": map[string]any{"type": "plain_text_input", "value": "hot"}},
				"askonce_remember": map[string]any{"dont_remember": map[string]any{"type": "checkboxes", "selected_options": []map[string]any{{"value": "1"}}}},
			}}},
	}, signedNow)
	if code != 200 || len(strings.TrimSpace(string(body))) != 0 {
		t.Fatalf("modal answer: %d %s", code, body)
	}
	settled(d, "hot")
	if m := memory(); len(m) != 1 || m[0] != "frozen" {
		t.Fatalf("project memory after a modal answer ticked don't remember: %v; want [frozen] unchanged", m)
	}
}

// Slack took the question, and askonce was killed before it stored the
// message's ts. After the restart the job has exactly one message, in a
// channel as in a direct message, and the message askonce updates when
// the job is answered is that one.
func slackQuestionCutOffByAKillIsNotPostedTwice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		to     map[string]any
		thread string // the conversation the message is in
	}{
		{"Channel", map[string]any{"channel": "C0456EFGH"}, "C0456EFGH"},
		{"DirectMessage", map[string]any{"user": "U0ANN0001"}, "D0ANN0001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeSlack(t)
			db := filepath.Join(t.TempDir(), "a.db")
			// A try cut off by the kill is retried once River gives it
			// up: the builder timeout plus 10 s, then the rescuer's next
			// round (every 30 s).
			args := []string{"--builder-timeout", "1s", "--replica-id", "replica-a"}
			in := startWithSlackOn(t, f, db, args...)
			held := f.holdNextPost()
			r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "notify": map[string]any{"slack": tc.to}})
			if r.status != 201 || str(r.body, "status") != "pending" {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			id := str(r.body, "jobId")
			var post slackCall
			select {
			case post = <-held:
			case <-time.After(30 * time.Second):
				t.Fatal("timed out waiting for the question's chat.postMessage")
			}
			in.stop(syscall.SIGKILL) // Slack has the message; askonce never learns its ts

			again := startWithSlackOn(t, f, db, args...)
			within(t, 90*time.Second, "the post retried after the restart", func() bool {
				return strings.Contains(string(again.do("GET", "/jobs/"+id+"/events", nil).raw), `"type":"notified"`)
			})
			if msgs := f.question("default", id); len(msgs) != 1 {
				t.Fatalf("%d question messages for the job; want 1", len(msgs))
			}
			if a := again.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}); a.status != 200 {
				t.Fatalf("answer: %d %s", a.status, a.raw)
			}
			eventually(t, "the message updated", func() bool { return len(f.find("chat.update", nil)) > 0 })
			u := f.find("chat.update", nil)[0].form
			if u.Get("channel") != tc.thread || u.Get("ts") != post.form.Get("ts") {
				t.Fatalf("updated the message %s %s; want the one posted, %s %s", u.Get("channel"), u.Get("ts"), tc.thread, post.form.Get("ts"))
			}
		})
	}
}

// A question with fields opens a modal with an input per field; the
// submission is one answer object, and a bad field's error shows under
// its own input while the job stays pending.
func slackModalOfAQuestionWithFieldsHasAnInputPerField(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	id := gateJob(t, in, map[string]any{"text": "Before the deploy:", "fields": []any{
		map[string]any{"name": "environment", "type": "SELECT_ONE", "options": []string{"staging", "production"}, "required": true},
		map[string]any{"name": "owner", "type": "FREE_TEXT", "required": true},
	}})
	f.posted(t, id)
	if code, _ := interact(t, in, click("default", id, "U0ANN0001", "modal", ""), signedNow); code != 200 {
		t.Fatalf("modal click: %d", code)
	}
	eventually(t, "views.open with an input per field", func() bool {
		return len(f.find("views.open", func(v url.Values) bool {
			j := v.Get("json")
			return strings.Contains(j, `askonce|default|`+id) && strings.Contains(j, `"block_id":"field_0"`) && strings.Contains(j, `"block_id":"field_1"`)
		})) == 1
	})
	submit := func(option, owner string) (int, []byte) {
		return interact(t, in, map[string]any{
			"type": "view_submission", "user": map[string]any{"id": "U0ANN0001"},
			"view": map[string]any{"callback_id": "askonce_answer", "private_metadata": "askonce|default|" + id,
				"state": map[string]any{"values": map[string]any{
					"field_0": map[string]any{"answer": map[string]any{"type": "static_select", "selected_option": map[string]any{"value": option}}},
					"field_1": map[string]any{"answer": map[string]any{"type": "plain_text_input", "value": owner}},
				}}},
		}, signedNow)
	}
	code, raw := submit("o:1", " \u200b ")
	var resp struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(raw, &resp); code != 200 || err != nil || resp.Action != "errors" || resp.Errors["field_1"] == "" || resp.Errors["field_0"] != "" {
		t.Fatalf("invisible owner: %d %s; want the error under field_1 only", code, raw)
	}
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "status") != "pending" {
		t.Fatalf("after an invalid answer the job is %s; want pending", str(j.body, "status"))
	}
	if code, raw := submit("o:1", "Priya"); code != 200 || len(strings.TrimSpace(string(raw))) != 0 {
		t.Fatalf("valid answer: %d %s; want 200 with no body", code, raw)
	}
	j := in.do("GET", "/jobs/"+id, nil)
	if v, _ := json.Marshal(j.body["clarificationValue"]); string(v) != `{"environment":"production","owner":"Priya"}` || str(j.body, "clarificationAnswer") != "environment: production; owner: Priya" {
		t.Fatalf("answer %s (%q); want the modal's fields", v, str(j.body, "clarificationAnswer"))
	}
}
