package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askonce/askonce/answertest"
	"github.com/askonce/askonce/server"
)

// An answer over the HTTP API (POST /jobs/{id}/clarification) reads its
// job once: the job is read to apply the answer to, and not again to
// plan it or to render the outcome. The job was created by another
// engine on the same store (another process), so this one holds no copy
// of it.
func TestJobReadOnce_HTTPAnswer(t *testing.T) {
	t.Parallel()
	st, j, eng := answertest.AskedElsewhere(t, "hot frozen cheese")
	api := server.New(server.Config{Engine: eng})
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
