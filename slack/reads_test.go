package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
)

// signedInteraction is a POST of payload to the interactions endpoint,
// signed with secret as Slack signs.
func signedInteraction(t *testing.T, payload any, secret string) *http.Request {
	t.Helper()
	p, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	body := url.Values{"payload": {string(p)}}.Encode()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + ts + ":" + body))
	r := httptest.NewRequest(http.MethodPost, InteractionsPath, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("X-Slack-Request-Timestamp", ts)
	r.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return r
}

// A click on an option of a posted question reads the job once: the
// read that finds the option answers, and the engine is not asked to
// read the job again. The message to update is read once too.
func TestJobReadOnce_SlackClick(t *testing.T) {
	t.Parallel()
	st := answertest.Counting(t)
	e := &askonce.Engine{Store: st}
	// A gate-mode job: the engine remembers no pending job of that mode,
	// so without the job in hand it would read it again.
	j, err := e.Create(t.Context(), askonce.CreateRequest{Goal: "hot frozen cheese", Mode: askonce.ModeGate,
		Notify: &askonce.Recipients{Slack: &askonce.SlackRecipient{Channel: "C0123ABCD"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Report(t.Context(), "", j.ID, askonce.Report{Question: &askonce.Question{
		Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.PutMessage(t.Context(), askonce.Message{TenantID: j.TenantID, JobID: j.ID, Channel: msgQuestion, Ref: "C0123ABCD 1700000000.000001"}); err != nil {
		t.Fatal(err)
	}
	var posts atomic.Int64
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: countingSlack(t, &posts, http.StatusOK, nil)})
	if err != nil {
		t.Fatal(err)
	}
	st.Reset()

	w := httptest.NewRecorder()
	c.Handler().ServeHTTP(w, signedInteraction(t, map[string]any{
		"type": "block_actions", "trigger_id": "T.trigger", "user": map[string]any{"id": "U0ALICE01"},
		"channel":   map[string]any{"id": "C0123ABCD"},
		"container": map[string]any{"type": "message", "channel_id": "C0123ABCD"},
		"actions":   []map[string]any{{"action_id": actionOption + "_1", "block_id": jobRef(j.TenantID, j.ID), "value": optionValue(1)}},
	}, "s"))
	if w.Code != http.StatusOK {
		t.Fatalf("interaction: %d %s", w.Code, w.Body)
	}
	// The click is acted on after the response; its last step is the
	// message's update, recorded in the job's events.
	deadline := time.Now().Add(10 * time.Second)
	for !updated(t, e, j) {
		if time.Now().After(deadline) {
			t.Fatal("the click never updated the message")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := st.Jobs(); n != 1 {
		t.Errorf("the click read the job %d times; want 1", n)
	}
	if n := st.Messages(); n != 1 {
		t.Errorf("the click read the stored message %d times; want 1", n)
	}
	got, err := st.Store.GetJob(t.Context(), j.TenantID, j.ID)
	if err != nil || got.Answer.String() != "frozen" || got.AnsweredBy != "U0ALICE01" {
		t.Fatalf("job after the click: %+v, %v; want answered frozen by U0ALICE01", got, err)
	}
}

// updated reports whether the job's events record an update of its
// message.
func updated(t *testing.T, e *askonce.Engine, j *askonce.Job) bool {
	t.Helper()
	evs, err := e.Events(t.Context(), j.TenantID, j.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), `"kind":"update"`) {
			return true
		}
	}
	return false
}
