package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/storecount"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
)

// An answer over the HTTP API (POST /jobs/{id}/clarification) reads its
// job once: the job is read to apply the answer to, and not again to
// plan it or to render the outcome. The job was created by another
// engine on the same store (another process), so this one holds no copy
// of it.
func TestJobReadOnce_HTTPAnswer(t *testing.T) {
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
	api := server.New(server.Config{Engine: eng})
	st.Reset()
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/jobs/"+j.ID+"/clarification", strings.NewReader(`{"answer":"hot"}`))
	req.Header.Set("Content-Type", "application/json")
	api.ServeHTTP(w, req)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"success"`) {
		t.Fatalf("answer: %d %s", w.Code, w.Body)
	}
	if n := st.Jobs(); n != 1 {
		t.Errorf("the answer read the job %d times; want 1", n)
	}
}
