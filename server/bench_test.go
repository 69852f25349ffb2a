package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/metrics"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkRoundTripThroughHandler is `askonce bench --ask-percent 100`
// without the network: POST /jobs with a goal that asks, then POST
// /jobs/{id}/clarification, through the API's handler (access log at
// info, as serve's default, into io.Discard; metrics; otelhttp with
// tracing off), on SQLite and the rules interpreter. Its allocs/op are
// the HTTP path's and the engine's.
func BenchmarkRoundTripThroughHandler(b *testing.B) {
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "a.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	interp, err := rules.New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reg := metrics.NewRegistry()
	api := server.New(server.Config{
		Engine:      &askonce.Engine{Store: st, Interpreter: interp, Observer: metrics.NewObserver(reg)},
		Metrics:     reg,
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Idempotency: st,
	})
	post := func(path, body string, want int) map[string]any {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		api.ServeHTTP(w, r)
		if w.Code != want {
			b.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			b.Fatal(err)
		}
		return out
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		job := post("/jobs", fmt.Sprintf(`{"goal":"hot frozen cheese","sessionId":"bench-%d"}`, i), http.StatusCreated)
		id, _ := job["jobId"].(string)
		post("/jobs/"+id+"/clarification", `{"answer":"hot"}`, http.StatusOK)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}
