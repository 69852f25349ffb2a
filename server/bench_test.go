package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
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
	api := benchAPI(b)
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

// benchAPI is the API as serve builds it by default (access log at info
// into io.Discard, metrics, tracing off) on a SQLite file and the rules
// interpreter.
func benchAPI(b *testing.B) *server.Server {
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "a.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	interp, err := rules.New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reg := metrics.NewRegistry()
	return server.New(server.Config{
		Engine:      &askonce.Engine{Store: st, Interpreter: interp, Observer: metrics.NewObserver(reg)},
		Metrics:     reg,
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Idempotency: st,
	})
}

// BenchmarkRoundTripOverHTTP is `askonce bench --clients 16 --ask-percent
// 100` in one process: 16 clients (8 goroutines per core on two cores)
// each create a job that asks and answer it, over a real loopback
// listener, with JSON encoded and decoded on both sides as the bench
// does. Its allocs/op count the client's allocations as well as the
// server's; compare them before and after a change, not with the
// in-process benchmarks.
func BenchmarkRoundTripOverHTTP(b *testing.B) {
	srv := httptest.NewServer(benchAPI(b))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var n atomic.Int64
	post := func(path string, body any, want int, out any) error {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		resp, err := client.Post(srv.URL+path, "application/json", bytes.NewReader(data))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, err = io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != want {
			return fmt.Errorf("%s: %d %s", path, resp.StatusCode, data)
		}
		return json.Unmarshal(data, out)
	}
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var job struct {
				JobID  string `json:"jobId"`
				Status string `json:"status"`
			}
			if err := post("/jobs", map[string]string{"goal": "hot frozen cheese", "sessionId": fmt.Sprint("bench-", n.Add(1))}, http.StatusCreated, &job); err != nil {
				b.Error(err)
				return
			}
			if err := post("/jobs/"+job.JobID+"/clarification", map[string]string{"answer": "hot"}, http.StatusOK, &job); err != nil || job.Status != "success" {
				b.Errorf("answer: %v %s", err, job.Status)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}
