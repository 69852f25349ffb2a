package askonce_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce"
)

// BenchmarkRoundTripClarification measures the in-process round trip
// create -> ask -> answer -> success with the rules interpreter on a SQLite
// file in WAL mode. Each iteration is one full clarification round trip;
// every goal is in its own session so that the repeat guard never answers.
func BenchmarkRoundTripClarification(b *testing.B) {
	e := &askonce.Engine{Store: openStore(b, filepath.Join(b.TempDir(), "bench.db")), Interpreter: rulesInterpreter(b)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: fmt.Sprint("bench-", i)})
		if err != nil || j.Status != askonce.StatusPending {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		j, err = e.Answer(ctx, "", j.ID, "hot")
		if err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("answer: %v %v", err, j.Status)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// BenchmarkCreateNoQuestion measures create -> success for a goal that
// needs no question.
func BenchmarkCreateNoQuestion(b *testing.B) {
	e := &askonce.Engine{Store: openStore(b, filepath.Join(b.TempDir(), "bench.db")), Interpreter: rulesInterpreter(b)}
	b.ReportAllocs()
	for b.Loop() {
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "write the README then add tests", SessionID: "bench"})
		if err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("create: %v %v", err, j.Status)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkRoundTripClarificationParallel runs round trips from 16
// goroutines per core, the way a server with many clients sees them; the
// store commits concurrent writes together.
func BenchmarkRoundTripClarificationParallel(b *testing.B) {
	e := &askonce.Engine{Store: openStore(b, filepath.Join(b.TempDir(), "bench.db")), Interpreter: rulesInterpreter(b)}
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese"})
			if err != nil || j.Status != askonce.StatusPending {
				b.Fatalf("create: %v %v", err, j.Status)
			}
			if j, err = e.Answer(ctx, "", j.ID, "hot"); err != nil || j.Status != askonce.StatusSuccess {
				b.Fatalf("answer: %v %v", err, j.Status)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}
