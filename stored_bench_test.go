package askonce_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/walmeter"
	"github.com/askonce/askonce/sqlite"
)

// storedFloor is the least a clarification round trip's storage costs
// (walmeter.NewStoredFloor): it captures the rows one round trip on e
// (whose store is st, idle) writes, and replays them as two transactions
// of prepared statements on a file of their own, with the store's
// writer's connection string, each time with a new job id, session and
// job_log numbers and later times. Tables or indexes named in without
// are left out.
func storedFloor(b testing.TB, st *sqlite.Store, e *askonce.Engine, without ...string) *walmeter.Floor {
	b.Helper()
	c, fresh := capturedRoundTrip(b, st, e)
	return walmeter.NewStoredFloor(b, sqlite.WriterDSN, c, fresh, without...)
}

// capturedRoundTrip runs a round trip on e (whose store is st, idle) and
// returns the rows it wrote and how to make them new for each replay.
func capturedRoundTrip(b testing.TB, st *sqlite.Store, e *askonce.Engine) (*walmeter.Capture, walmeter.Fresh) {
	b.Helper()
	const session = "bench-0"
	var job string
	c := walmeter.Captured(b, st.WriteDB(), func() {
		j, err := e.Create(ctx, askonce.CreateRequest{Goal: "hot frozen cheese", SessionID: session})
		if err != nil || j.Status != askonce.StatusPending {
			b.Fatalf("create: %v %v", err, j.Status)
		}
		job = j.ID
		if j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil || j.Status != askonce.StatusSuccess {
			b.Fatalf("answer: %v %v", err, j.Status)
		}
	})
	if len(c.Txs) != 2 {
		b.Fatalf("a round trip committed %d transactions, want 2", len(c.Txs))
	}
	// The job's log_seq numbers its job_log records (sqlite.logID: the
	// high 32 bits of their ids).
	var seq int64
	cols := jobsColumns(b, st)
	for _, r := range c.Txs[0] {
		if r.Table == "jobs" {
			seq = r.New[cols["log_seq"]].(int64)
		}
	}
	if seq == 0 {
		b.Fatal("no jobs row in the create's transaction")
	}
	fresh := func(v any) func(i int64) any {
		switch v := v.(type) {
		case string:
			switch {
			case v == job:
				// Ordered as the job ids (UUIDv7) are, of their length.
				return func(i int64) any { return fmt.Sprintf("%0*d", len(job), i) }
			case v == session:
				// Named as the benchmark names its sessions.
				return func(i int64) any { return fmt.Sprint("bench-", i+1) }
			case strings.Contains(v, `"`+session+`"`):
				return func(i int64) any { return strings.Replace(v, `"`+session+`"`, fmt.Sprintf(`"bench-%d"`, i+1), 1) }
			}
		case int64:
			switch {
			case v == seq:
				return func(i int64) any { return seq + i }
			case v>>32 == seq:
				return func(i int64) any { return (seq+i)<<32 | v&(1<<32-1) }
			case v > 1e18:
				// A time (Unix ns): a round trip a millisecond after the
				// last.
				return func(i int64) any { return v + i*1e6 }
			}
		}
		return nil
	}
	return c, fresh
}

// jobsColumns returns the positions of the jobs table's columns.
func jobsColumns(b testing.TB, st *sqlite.Store) map[string]int {
	return queryMap[int](b, st.WriteDB(), `SELECT name, cid FROM pragma_table_info('jobs')`)
}

// queryMap returns a query's rows of a name and a value as a map.
func queryMap[V any](b testing.TB, db *sql.DB, query string) map[string]V {
	rows, err := db.Query(query)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := map[string]V{}
	for rows.Next() {
		var name string
		var v V
		if err := rows.Scan(&name, &v); err != nil {
			b.Fatal(err)
		}
		out[name] = v
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkRoundTripStoredBytes tells what storing exactly a round
// trip's rows costs (storedFloor) and what each table or index costs of
// it: each iteration runs, in turn, storedBytesUnits replays of the
// whole floor and of the floor without each part, each on a file of its
// own, and FloorEvery one-row commits (walmeter.NewFloor), so that a
// burst of load on a shared machine moves all of them alike. It reports
// the medians over the iterations of each one's time in one-row commits
// (floor-commits:NAME) and as a share of the whole floor's
// (of-all:NAME), and the WAL frames of each (walframes:NAME); and of the
// whole floor run on the driver's connection without database/sql
// (walmeter.NewStoredDriverFloor, driver-only). Run it with a fixed
// count (-benchtime 400x).
func BenchmarkRoundTripStoredBytes(b *testing.B) {
	variants := [][]string{
		nil,
		{"jobs_by_tenant"},
		{"jobs_by_tenant_session"},
		{"jobs_active"},
		{"jobs_by_tenant", "jobs_by_tenant_session", "jobs_active"},
		{"history"},
		{"job_log"},
	}
	names := make([]string, len(variants))
	floors := make([]*walmeter.Floor, len(variants))
	for i, without := range variants {
		names[i] = "all"
		if without != nil {
			names[i] = "without-" + strings.Join(without, "+")
		}
		st, e := benchEngine(b)
		floors[i] = storedFloor(b, st, e, without...)
	}
	// The whole floor on the driver's connection, without database/sql.
	st, e := benchEngine(b)
	c, fresh := capturedRoundTrip(b, st, e)
	names = append(names, "driver-only")
	floors = append(floors, walmeter.NewStoredDriverFloor(b, sqlite.WriterDSN, c, fresh))
	for _, f := range floors {
		// The WAL grows from here on, as the store's does between two
		// checkpoints.
		walmeter.Checkpoint(b, f.DB())
	}
	one := walmeter.NewFloor(b, sqlite.WriterDSN)
	bg := context.Background()
	ns := make([][]float64, len(floors))
	var oneNs []float64
	timed := func(f *walmeter.Floor, n int) float64 {
		start := time.Now()
		for range n {
			if err := f.Unit(bg); err != nil {
				b.Fatal(err)
			}
		}
		return float64(time.Since(start).Nanoseconds()) / float64(n)
	}
	rounds := 0
	for b.Loop() {
		rounds++
		for i, f := range floors {
			ns[i] = append(ns[i], timed(f, storedBytesUnits))
		}
		oneNs = append(oneNs, timed(one, walmeter.FloorEvery))
	}
	for i, name := range names {
		commits, ofAll := make([]float64, rounds), make([]float64, rounds)
		for r := range rounds {
			commits[r] = ns[i][r] / oneNs[r]
			ofAll[r] = ns[i][r] / ns[0][r]
		}
		b.ReportMetric(median(commits), "floor-commits:"+name)
		if i > 0 {
			b.ReportMetric(median(ofAll), "of-all:"+name)
		}
		b.ReportMetric(float64(walmeter.Checkpoint(b, floors[i].DB()))/float64(rounds*storedBytesUnits), "walframes:"+name)
	}
	b.ReportMetric(median(oneNs), "floor-ns/commit")
}

// storedBytesUnits is how many replays of each floor an iteration of
// BenchmarkRoundTripStoredBytes times.
const storedBytesUnits = 8

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// TestStoredFloorStoresWhatRoundTripsStore holds storedFloor to its
// promise: after as many replays as round trips, each table and index
// holds as many bytes per job in its leaf pages as the store's do, and
// the replays write as many WAL frames.
func TestStoredFloorStoresWhatRoundTripsStore(t *testing.T) {
	st, e := benchEngine(t)
	f := storedFloor(t, st, e)
	// storedFloor ran one round trip and its floor replayed it
	// walmeter.FloorEvery times (its warm-up): as many round trips,
	// then as many again of each, their WAL frames counted.
	const n = walmeter.FloorEvery
	for i := 1; i < n; i++ {
		clarificationRoundTrip(t, e, fmt.Sprint("bench-", i))
	}
	walmeter.Checkpoint(t, st.WriteDB())
	walmeter.Checkpoint(t, f.DB())
	for i := n; i < 2*n; i++ {
		clarificationRoundTrip(t, e, fmt.Sprint("bench-", i))
	}
	ctx := context.Background()
	for range n {
		if err := f.Unit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got, want := walmeter.Checkpoint(t, f.DB()), walmeter.Checkpoint(t, st.WriteDB())
	t.Logf("%d round trips wrote %d WAL frames, as many replays %d", n, want, got)
	if float64(got) < 0.9*float64(want) || float64(got) > 1.1*float64(want) {
		t.Errorf("%d round trips wrote %d WAL frames, as many replays %d", n, want, got)
	}
	stored, replayed := leafBytes(t, st.WriteDB()), leafBytes(t, f.DB())
	t.Logf("leaf bytes: the store's %v, the floor's %v", stored, replayed)
	for _, name := range []string{"jobs", "job_log", "history", "jobs_by_tenant", "jobs_by_tenant_session"} {
		if stored[name] == 0 || replayed[name] < 0.98*stored[name] || replayed[name] > 1.02*stored[name] {
			t.Errorf("%s: %.0f bytes in the store's leaves, %.0f in the floor's", name, stored[name], replayed[name])
		}
	}
}

// leafBytes returns the payload bytes in the leaf pages of each b-tree
// of db.
func leafBytes(t *testing.T, db *sql.DB) map[string]float64 {
	return queryMap[float64](t, db, `SELECT name, sum(payload) FROM dbstat WHERE pagetype = 'leaf' GROUP BY name`)
}
