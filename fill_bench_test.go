package askonce_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// BenchmarkManyJobs fills a store with many finished clarification round
// trips (ASKONCE_FILL_JOBS, default 20,000; each created, asked, answered
// and planned through the engine with the rules interpreter, from 32
// goroutines, ten jobs per session, one tenant; one in a thousand is
// cancelled instead of answered), then times round trips on the full
// store, as BenchmarkRoundTripClarification does on an empty one. It
// reports the file's bytes per stored job (after a checkpoint) and the
// 99th percentile of the reads a user interface makes on a store that
// size: the newest page of the tenant's jobs and the next one, a page
// filtered by each status (success, which nearly every job has;
// cancelled, one in a thousand; the others, none), by a session, by
// both, by status after a cursor, and a session's history.
// ASKONCE_FILL_DB keeps the database at that path, to serve it afterwards
// (askonce serve --db); with ASKONCE_FILL_JOBS=0 the jobs stored there
// are measured again, without a fill.
func BenchmarkManyJobs(b *testing.B) {
	n := 20000
	path := os.Getenv("ASKONCE_FILL_DB")
	if v := os.Getenv("ASKONCE_FILL_JOBS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 || n == 0 && path == "" {
			b.Fatalf("ASKONCE_FILL_JOBS=%q is not a positive number (or 0, with ASKONCE_FILL_DB)", v)
		}
	}
	if path == "" {
		path = filepath.Join(b.TempDir(), "many.db")
	}
	st := openStore(b, path)
	e := &askonce.Engine{Store: st, Interpreter: rulesInterpreter(b)}
	if n == 0 {
		// Measure the jobs a previous run stored; the sessions' names
		// come from their number.
		if err := st.WriteDB().QueryRow(`SELECT count(*) FROM jobs`).Scan(&n); err != nil || n == 0 {
			b.Fatalf("ASKONCE_FILL_JOBS=0: no jobs in %s to measure (%v)", path, err)
		}
		b.Logf("measuring the %d jobs stored in %s", n, path)
		measureManyJobs(b, st, e, path, n)
		return
	}
	const workers = 32
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				j, err := e.Create(ctx, askonce.CreateRequest{Goal: fmt.Sprintf("hot frozen cheese number %d", i), SessionID: fmt.Sprint("fill-", i/10)})
				if err != nil {
					b.Error(err)
					return
				}
				if j.Status != askonce.StatusPending {
					continue
				}
				// One job in a thousand is cancelled, so that the lists
				// by a status few jobs end in have a page to read.
				if i%1000 == 0 {
					_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActCancel, ID: j.ID})
				} else {
					_, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")})
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	b.Logf("filled %d jobs in %s", n, time.Since(start).Round(time.Millisecond))
	measureManyJobs(b, st, e, path, n)
}

// measureManyJobs reports BenchmarkManyJobs' measures of a store of n
// jobs at path.
func measureManyJobs(b *testing.B, st *sqlite.Store, e *askonce.Engine, path string, n int) {
	if _, err := st.WriteDB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	// Reported after the timed loop, which would delete them.
	metrics := map[string]float64{"bytes/job": float64(fi.Size()) / float64(n)}
	p99 := func(what string, f func() error) {
		var ds []time.Duration
		for range 400 {
			t := time.Now()
			if err := f(); err != nil {
				b.Fatalf("%s: %v", what, err)
			}
			ds = append(ds, time.Since(t))
		}
		slices.Sort(ds)
		metrics[what+"-p99-ms"] = float64(ds[len(ds)*99/100].Microseconds()) / 1000
	}
	list := func(f askonce.JobFilter) func() error {
		return func() error {
			_, err := e.List(ctx, "", f)
			return err
		}
	}
	session := fmt.Sprint("fill-", n/20)
	p99("list", list(askonce.JobFilter{}))
	first, err := e.List(ctx, "", askonce.JobFilter{})
	if err != nil {
		b.Fatal(err)
	}
	p99("list-page2", list(askonce.JobFilter{Cursor: first.NextCursor}))
	p99("list-session", list(askonce.JobFilter{SessionID: session}))
	// Every status but pending (last, below): success is nearly every
	// job's, cancelled one in a thousand's, the others none's, so each
	// reads its index or, without one, the tenant's jobs until it has a
	// page (all of them for the statuses no job has).
	for _, st := range askonce.Statuses {
		if st == askonce.StatusPending {
			continue
		}
		p99("list-"+string(st), list(askonce.JobFilter{Status: st}))
		p99("list-session-"+string(st), list(askonce.JobFilter{Status: st, SessionID: session}))
		p99("list-page2-"+string(st), list(askonce.JobFilter{Status: st, Cursor: first.NextCursor}))
	}
	p99("history", func() error {
		_, err := e.History(ctx, "", fmt.Sprint("fill-", n/20))
		return err
	})

	// Sessions of this run's own: a store measured again holds the
	// last run's, whose history would answer.
	run := time.Now().UnixNano()
	i := 0
	for b.Loop() {
		i++
		clarificationRoundTrip(b, e, fmt.Sprint("bench-", run, "-", i))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	b.StopTimer()
	// The timed loop's round trips leave no job pending: jobs_active
	// (migration 00009) holds none.
	p99("list-pending", list(askonce.JobFilter{Status: askonce.StatusPending}))
	for name, v := range metrics {
		b.ReportMetric(v, name)
	}
}
