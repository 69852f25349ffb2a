package askonce_test

import (
	"crypto/rand"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/walmeter"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkRoundTripClarification measures the in-process round trip
// create -> ask -> answer -> success with the rules interpreter on a SQLite
// file in WAL mode. Each iteration is one full clarification round trip;
// every goal is in its own session so that the repeat guard never answers.
//
// It reports, besides the time, the WAL frames and write transactions of
// one round trip (checkpoints off and untimed while it runs) and its time
// in one-row commits on the same driver and pragmas (floor-commits/op),
// and in units of the least two transactions of its shape cost
// (shape-floors/op, walmeter.NewShapeFloor): the create's transaction
// touches five b-trees (jobs, job_log, jobs_by_tenant,
// jobs_by_tenant_session, jobs_active), the answer's four (jobs,
// job_log, jobs_active, history); see
// BenchmarkRoundTripClarificationPages.
func BenchmarkRoundTripClarification(b *testing.B) {
	st, e := benchEngine(b)
	m := meter(b, st)
	m.Shape(walmeter.NewShapeFloor(b, sqlite.WriterDSN, 5, 4))
	roundTrips(b, e, m)
}

// BenchmarkRoundTripBare is BenchmarkRoundTripClarification without its
// meter: no floor or shape-floor samples and no checkpoints of the
// meter's own, only the round trips as the store runs them (its
// background checkpoints included). Its process's CPU is what a
// comparison of two builds reads ("Comparing two builds" in
// docs/benchmarks.md): the meter's samples cost about the same in both
// builds and would pull their ratio towards 1. Its body compiles in
// older checkouts as it is, so the same function can be copied into
// one to compare with it.
func BenchmarkRoundTripBare(b *testing.B) {
	e := &askonce.Engine{Store: openStore(b, filepath.Join(b.TempDir(), "bench.db")), Interpreter: rulesInterpreter(b)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		clarificationRoundTrip(b, e, fmt.Sprint("bench-", i))
	}
}

// BenchmarkRoundTripClarificationStored is BenchmarkRoundTripClarification
// against the least two transactions that store what a round trip
// stores (storedFloor): the round trip's time in their units
// (stored-floors/op), and theirs in one-row commits
// (stored-floor-commits), sampled in the same seconds; and the same with
// those transactions run on the driver's connection without database/sql
// (driver-stored-floors/op, driver-stored-floor-commits;
// walmeter.NewStoredDriverFloor). A benchmark of its own, so that
// BenchmarkRoundTripClarification's process does the work it did, for
// comparisons of whole-process CPU with older builds.
func BenchmarkRoundTripClarificationStored(b *testing.B) {
	st, e := benchEngine(b)
	c, fresh := capturedRoundTrip(b, st, e)
	m := meter(b, st)
	m.Also("stored-floor", walmeter.NewStoredFloor(b, sqlite.WriterDSN, c, fresh))
	m.Also("driver-stored-floor", walmeter.NewStoredDriverFloor(b, sqlite.WriterDSN, c, fresh))
	roundTrips(b, e, m)
}

// roundTrips runs a clarification round trip per iteration, each in a
// session of its own, metered by m.
func roundTrips(b *testing.B, e *askonce.Engine, m *walmeter.Meter) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		clarificationRoundTrip(b, e, fmt.Sprint("bench-", i))
		m.Tick()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	m.Report()
}

// BenchmarkCreateNoQuestion measures create -> success for a goal that
// needs no question: one transaction, which touches four b-trees (jobs,
// job_log, jobs_by_tenant, jobs_by_tenant_session).
func BenchmarkCreateNoQuestion(b *testing.B) {
	e, m := meteredEngine(b)
	m.Shape(walmeter.NewShapeFloor(b, sqlite.WriterDSN, 4))
	b.ReportAllocs()
	for b.Loop() {
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "write the README then add tests", SessionID: "bench"})
		if err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		m.Tick()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	m.Report()
}

// BenchmarkCreateAndCancel measures a job that asks and is cancelled:
// create -> ask, then cancel, whose transaction also writes the job's
// entries in jobs_ended and jobs_ended_by_session (migration 00012), the
// indexes a job that ends in success never touches.
func BenchmarkCreateAndCancel(b *testing.B) {
	e, m := meteredEngine(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: fmt.Sprint("bench-", i)})
		if err != nil || j.Status != askonce.StatusPending {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		if j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: j.ID}); err != nil || j.Status != askonce.StatusCancelled {
			b.Fatalf("cancel: %v %v", err, j.Status)
		}
		m.Tick()
	}
	m.Report()
}

// BenchmarkRoundTripClarificationParallel runs round trips from 16
// goroutines per core, the way a server with many clients sees them; the
// store commits concurrent writes together. The jobs name no session, so
// the repeat guard has no history to look up.
func BenchmarkRoundTripClarificationParallel(b *testing.B) {
	parallelRoundTrips(b, 16, func() string { return "" })
}

// BenchmarkRoundTripClarificationParallelSessions is
// BenchmarkRoundTripClarificationParallel with each job in a session of
// its own, named by the caller, as `askonce bench` sends them: each
// question is then looked up in the session's history. This is the
// in-process rate to hold the HTTP rate against.
func BenchmarkRoundTripClarificationParallelSessions(b *testing.B) {
	parallelRoundTrips(b, 16, sessionPerJob())
}

// BenchmarkRoundTripClarificationParallelSessions16 is
// BenchmarkRoundTripClarificationParallelSessions with 16 callers in all
// (8 per core on two cores), as many as `askonce bench --clients 16`
// has: the like-for-like rate for the HTTP figure. Fewer callers share
// fewer commits (txs/op).
func BenchmarkRoundTripClarificationParallelSessions16(b *testing.B) {
	parallelRoundTrips(b, max(1, 16/runtime.GOMAXPROCS(0)), sessionPerJob())
}

// sessionPerJob returns a namer of a new session for each job, as
// `askonce bench` names them.
func sessionPerJob() func() string {
	var n atomic.Int64
	prefix := rand.Text()[:8]
	return func() string { return fmt.Sprint("bench-", prefix, "-", n.Add(1)) }
}

// parallelRoundTrips runs round trips from perCore goroutines per core,
// each job in the session session names.
func parallelRoundTrips(b *testing.B, perCore int, session func() string) {
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	start := st.Commits()
	b.ReportAllocs()
	b.SetParallelism(perCore)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			clarificationRoundTrip(b, e, session())
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	b.ReportMetric(float64(st.Commits()-start)/float64(b.N), "txs/op")
}

// clarificationRoundTrip creates a job whose goal asks, in session, and
// answers its question: pending, then success.
func clarificationRoundTrip(b testing.TB, e *askonce.Engine, session string) {
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: session})
	if err != nil || j.Status != askonce.StatusPending {
		b.Fatalf("create: %v %v", err, j.Status)
	}
	if j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil || j.Status != askonce.StatusSuccess {
		b.Fatalf("answer: %v %v", err, j.Status)
	}
}

// BenchmarkRoundTripClarificationFields is BenchmarkRoundTripClarification
// for a question the specSchema detector asks: of one open field (the
// plain question it asked before fields) and of three open fields asked
// as one question with fields. Both are one create and one answer
// transaction; the fields ride in the jobs row (clarification_fields).
func BenchmarkRoundTripClarificationFields(b *testing.B) {
	for _, bc := range []struct {
		name, schema, answer string
	}{
		{"OneField", `{"type":"object","required":["environment"],"properties":{"environment":{"enum":["staging","production"]}}}`, `"production"`},
		{"ThreeFields", `{"type":"object","required":["environment","dry_run","owner"],"properties":{"environment":{"enum":["staging","production"]},"dry_run":{"type":"boolean"},"owner":{"type":"string"}}}`,
			`{"environment":"production","dry_run":"no","owner":"Priya"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, m := meteredEngine(b)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				j, err := e.Create(ctx, askonce.CreateRequest{Goal: "ship the release", SessionID: fmt.Sprint("bench-", i), SpecSchema: []byte(bc.schema)})
				if err != nil || j.Status != askonce.StatusPending {
					b.Fatalf("create: %v %v", err, j.Status)
				}
				// The answer as HTTP gives it: JSON, read by the engine's
				// one reader.
				a, err := askonce.ParseAnswerJSON([]byte(bc.answer))
				if err != nil {
					b.Fatal(err)
				}
				if j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: a}); err != nil || j.Status != askonce.StatusSuccess {
					b.Fatalf("answer: %v %+v", err, j)
				}
				m.Tick()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
			m.Report()
		})
	}
}

// meteredEngine is an Engine on the rules interpreter and a new SQLite
// file, with a meter of its WAL frames and commits against the floor
// (walmeter.NewFloor) on the same driver and pragmas.
func meteredEngine(b *testing.B) (*askonce.Engine, *walmeter.Meter) {
	b.Helper()
	st, e := benchEngine(b)
	return e, meter(b, st)
}

// benchEngine is an Engine on the rules interpreter and a new SQLite
// file.
func benchEngine(b testing.TB) (*sqlite.Store, *askonce.Engine) {
	st := openStore(b, filepath.Join(b.TempDir(), "bench.db"))
	return st, &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
}

// meter meters st against the floor (walmeter.NewFloor) on the same
// driver and pragmas.
func meter(b *testing.B, st *sqlite.Store) *walmeter.Meter {
	return walmeter.New(b, st.WriteDB(), st.Commits, walmeter.NewFloor(b, sqlite.WriterDSN))
}
