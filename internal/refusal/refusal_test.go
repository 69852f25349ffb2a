package refusal_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/askonce/askonce/internal/refusal"
)

// A plain-text error is held back with its status and text; JSON errors
// and successes pass through.
func TestPlainTextRefusalIsHeldBackAndTheRestPassesThrough(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		write      func(w http.ResponseWriter)
		held       int
		msg        string
		passStatus int
		passBody   string
	}{
		{"PlainTextError", func(w http.ResponseWriter) { http.Error(w, "session not found", http.StatusNotFound) }, 404, "session not found", 200, ""},
		{"JSONError", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{}`))
		}, 0, "", 400, `{}`},
		{"PlainTextSuccess", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("ok"))
		}, 0, "", 200, "ok"},
	} {
		rec := httptest.NewRecorder()
		w := &refusal.Writer{ResponseWriter: rec}
		c.write(w)
		status, msg := w.Held()
		if status != c.held || msg != c.msg || rec.Code != c.passStatus || rec.Body.String() != c.passBody {
			t.Errorf("%s: held %d %q, passed %d %q; want held %d %q, passed %d %q", c.name, status, msg, rec.Code, rec.Body, c.held, c.msg, c.passStatus, c.passBody)
		}
	}
}
