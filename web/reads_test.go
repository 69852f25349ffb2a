package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
	"github.com/askonce/askonce/web"
)

// An answer from the answer page (POST /a/{token}) reads its job once:
// the link's lookup, and the answer is applied to the job it found. The
// job was created by another engine on the same store (another
// process), so this one holds no copy of it.
func TestJobReadOnce_PageAnswer(t *testing.T) {
	t.Parallel()
	st, j, eng := answertest.AskedElsewhere(t, "hot frozen cheese")
	pages := web.New(web.Config{Engine: eng})
	token := eng.AnswerToken(j)
	req := httptest.NewRequest(http.MethodPost, "/a/"+token, strings.NewReader(url.Values{"answer": {"hot"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	pages.ServeHTTP(w, req)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("answer: %d %s", w.Code, w.Body)
	}
	if err := eng.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := st.Jobs(); n != 1 {
		t.Errorf("the answer read the job %d times; want 1", n)
	}
	got, err := st.Store.GetJob(t.Context(), j.TenantID, j.ID)
	if err != nil || got.Status != askonce.StatusSuccess || got.Answer.String() != "hot" {
		t.Fatalf("job after the answer: %+v %v; want success answered hot", got, err)
	}
}
