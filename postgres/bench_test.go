package postgres

import (
	"fmt"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/rules"
)

// BenchmarkRoundTrip measures the in-process round trip create -> ask ->
// answer -> success with the engine and the rules interpreter on
// PostgreSQL (a fresh schema of the run's database), as the root
// package's BenchmarkRoundTripClarification and
// BenchmarkRoundTripClarificationParallel do on SQLite: serial, one
// goroutine; parallel, 16 goroutines per core. Every goal is in its own
// session so that the repeat guard never answers.
//
// The async variants connect with synchronous_commit=off (a DSN
// parameter): a commit no longer waits for its WAL flush, which is what
// the SQLite store's synchronous=NORMAL does too; a crash of the
// database server (not of askonce) may then lose the last commits. The
// pool16 variants set pool_max_conns=16 (the default of this machine's
// two cores is 4).
func BenchmarkRoundTrip(b *testing.B) {
	roundTrip := func(b *testing.B, e *askonce.Engine, session string) {
		ctx := b.Context()
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: session})
		if err != nil || j.Status != askonce.StatusPending {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		if j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("answer: %v %v", err, j.Status)
		}
	}
	for _, mode := range []struct{ name, param, pool string }{{"", "", ""}, {"async/", "off", ""}, {"pool16/", "", "16"}} {
		open := func(b *testing.B) askonce.Store {
			dsn := pgtest.Schema(b)
			if mode.param != "" {
				dsn += "&synchronous_commit=" + mode.param
			}
			if mode.pool != "" {
				dsn += "&pool_max_conns=" + mode.pool
			}
			s, err := Open(b.Context(), dsn)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
		runBoth(b, mode.name, open, roundTrip)
	}
}

func runBoth(b *testing.B, prefix string, open func(b *testing.B) askonce.Store, roundTrip func(b *testing.B, e *askonce.Engine, session string)) {
	interp, err := rules.New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run(prefix+"serial", func(b *testing.B) {
		e := &askonce.Engine{Store: open(b), Interpreter: interp}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			roundTrip(b, e, fmt.Sprint("bench-", i))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	})
	b.Run(prefix+"parallel", func(b *testing.B) {
		e := &askonce.Engine{Store: open(b), Interpreter: interp}
		b.ReportAllocs()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				roundTrip(b, e, "")
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	})
}
