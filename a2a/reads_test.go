package a2a_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/internal/storecount"
	"github.com/askonce/askonce/rules"
)

// An A2A 1.0 SendMessage that answers a task's question reads the job
// once: to check the message against the task, and the answer is
// applied to the job as read. The job was created by another engine on
// the same store (another process), so this one holds no copy of it.
func TestJobReadOnce_A2ASendMessage(t *testing.T) {
	t.Parallel()
	st := storecount.Open(t)
	r, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := &askonce.Engine{Store: st, Interpreter: r}
	j, err := other.Create(t.Context(), askonce.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %v %v", j, err)
	}
	eng := &askonce.Engine{Store: st, Interpreter: r}
	mux := http.NewServeMux()
	a2a.New(a2a.Config{Engine: eng, PublicURL: "http://askonce.test"}).Mount(mux)
	st.Reset()
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
