package a2a_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/answertest"
)

// An A2A 1.0 SendMessage that answers a task's question reads the job
// once: to check the message against the task, and the answer is
// applied to the job as read. The job was created by another engine on
// the same store (another process), so this one holds no copy of it.
func TestJobReadOnce_A2ASendMessage(t *testing.T) {
	t.Parallel()
	st, j, eng := answertest.AskedElsewhere(t, "hot frozen cheese")
	mux := http.NewServeMux()
	a2a.New(a2a.Config{Engine: eng, PublicURL: "http://askonce.test"}).Mount(mux)
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","taskId":"` + j.ID + `","parts":[{"text":"hot"}]}}}`
	req := httptest.NewRequest(http.MethodPost, a2a.Path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", a2a.ProtocolVersion)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "TASK_STATE_COMPLETED") {
		t.Fatalf("send: %d %s", w.Code, w.Body)
	}
	if n := st.Jobs(); n != 1 {
		t.Errorf("the message read the job %d times; want 1", n)
	}
}
