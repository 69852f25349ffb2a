package askonce_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
func storedFloor(b *testing.B, st *sqlite.Store, e *askonce.Engine, without ...string) *walmeter.Floor {
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
	for _, r := range c.Txs[0] {
		if r.Table == "jobs" {
			cols, _ := tableColumns(b, st)
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
	return walmeter.NewStoredFloor(b, sqlite.WriterDSN, c, fresh, without...)
}

// tableColumns returns the positions of the jobs table's columns.
func tableColumns(b *testing.B, st *sqlite.Store) (map[string]int, error) {
	rows, err := st.WriteDB().Query(`SELECT name, cid FROM pragma_table_info('jobs')`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	cols := map[string]int{}
	for rows.Next() {
		var name string
		var cid int
		if err := rows.Scan(&name, &cid); err != nil {
			b.Fatal(err)
		}
		cols[name] = cid
	}
	return cols, rows.Err()
}

// BenchmarkRoundTripStoredBytes runs the stored floor of
// BenchmarkRoundTripClarification (storedFloor) as the benchmark's
// iteration: what storing exactly a round trip's rows costs, in WAL
// frames and one-row commits (floor-commits/op), with all of it and
// without each table or index, to tell what each costs.
func BenchmarkRoundTripStoredBytes(b *testing.B) {
	for _, without := range [][]string{
		nil,
		{"jobs_by_tenant"},
		{"jobs_by_tenant_session"},
		{"jobs_active"},
		{"jobs_by_tenant", "jobs_by_tenant_session", "jobs_active"},
		{"history"},
		{"job_log"},
	} {
		name := "all"
		if without != nil {
			name = "without=" + strings.Join(without, "+")
		}
		b.Run(name, func(b *testing.B) {
			st, e := benchEngine(b)
			f := storedFloor(b, st, e, without...)
			m := walmeter.New(b, f.DB(), f.Commits, walmeter.NewFloor(b, sqlite.WriterDSN))
			bg := context.Background()
			for b.Loop() {
				if err := f.Unit(bg); err != nil {
					b.Fatal(err)
				}
				m.Tick()
			}
			m.Report()
		})
	}
}
