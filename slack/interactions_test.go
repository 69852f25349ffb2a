package slack

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/askonce/askonce"
)

// submission is a modal's view_submission of the typed answer to the
// job id of tenant.
func submission(tenant, id, answer string) map[string]any {
	return map[string]any{
		"type": "view_submission", "user": map[string]any{"id": "U0ALICE01"},
		"view": map[string]any{
			"callback_id": modalCallback, "private_metadata": jobRef(tenant, id),
			"state": map[string]any{"values": map[string]any{
				inputBlock: map[string]any{inputAction: map[string]any{"type": "plain_text_input", "value": answer}},
			}},
		},
	}
}

// A typed answer to a job that no longer exists keeps the modal open
// saying askonce no longer has the question: there is nothing to retry,
// so it does not say "try again".
func TestModalAnswerToARemovedJobSaysTheQuestionIsGone(t *testing.T) {
	t.Parallel()
	e, j := askingJob(t, askonce.SlackRecipient{Channel: "C0123ABCD"})
	var posts atomic.Int64
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: countingSlack(t, &posts, http.StatusOK, nil)})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	c.Handler().ServeHTTP(w, signedInteraction(t, submission(j.TenantID, "no-such-job", "hot"), "s"))
	var out struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != http.StatusOK || out.Action != "errors" {
		t.Fatalf("submission for a removed job: %d %s; want the modal kept open with an error", w.Code, w.Body)
	}
	if msg := out.Errors[inputBlock]; !strings.Contains(msg, "no longer has this question") || strings.Contains(msg, "try again") {
		t.Errorf("error under the input: %q; want it to say the question is gone, not to try again", msg)
	}
}

// A typed answer to a question already settled keeps the modal open
// saying so, with the settled answer: it changes nothing.
func TestModalAnswerToASettledQuestionSaysAlreadySettled(t *testing.T) {
	t.Parallel()
	e, j := askingJob(t, askonce.SlackRecipient{Channel: "C0123ABCD"})
	if _, _, err := e.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, TenantID: j.TenantID, ID: j.ID, Answer: askonce.TextAnswer("frozen"), Background: true}); err != nil {
		t.Fatal(err)
	}
	var posts atomic.Int64
	c, err := New(Config{Engine: e, Token: "xoxb-test", SigningSecret: "s", APIURL: countingSlack(t, &posts, http.StatusOK, nil)})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	c.Handler().ServeHTTP(w, signedInteraction(t, submission(j.TenantID, j.ID, "hot"), "s"))
	var out struct {
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || !strings.Contains(out.Errors[inputBlock], "Already settled") || !strings.Contains(out.Errors[inputBlock], "frozen") {
		t.Fatalf("submission for a settled question: %d %s; want the modal kept open saying it was settled with frozen", w.Code, w.Body)
	}
	got, err := e.Get(t.Context(), j.TenantID, j.ID)
	if err != nil || got.Answer.String() != "frozen" {
		t.Fatalf("job after the late submission: %+v, %v; want frozen kept", got, err)
	}
}
