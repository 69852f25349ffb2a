package postgres

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
)

// The plan PostgreSQL picks for ListJobs for every filter the API allows
// (status, session, cursor, and each combination), on a tenant of 20,000
// jobs that nearly all succeeded: each reads an index on every filter it
// can, none reads the tenant's jobs to find a status few jobs have, none
// scans the table and none sorts. The in-progress statuses read
// jobs_active (migration 00003), the rare ended ones jobs_ended and
// jobs_ended_by_session (00005); success, nearly every job's, the
// tenant's or the session's jobs.
func TestListJobsReadsAnIndexForEveryFilter(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	fillJobs(t, s, 20000)
	for _, st := range append([]askonce.Status{""}, askonce.Statuses...) {
		for _, session := range []string{"", "s7"} {
			for _, cursor := range []string{"", sqlstore.EncodeCursor(1, "x")} {
				q, args, err := listQuery("t", askonce.JobFilter{Status: st, SessionID: session, Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				plan := explain(t, s, q, args...)
				what := func() string { return "status " + string(st) + ", session " + session + ", cursor " + cursor }
				if want := wantListIndexes(st, session != ""); !slices.ContainsFunc(want, func(ix string) bool {
					return strings.Contains(plan, "using "+ix+" on jobs j")
				}) {
					t.Errorf("%s: plan\n%s\nwant it to read one of %q", what(), plan, want)
				}
				for _, bad := range []string{"Seq Scan on jobs j", "Sort"} {
					if strings.Contains(plan, bad) {
						t.Errorf("%s: plan\n%s\nhas %q", what(), plan, bad)
					}
				}
			}
		}
	}
}

// wantListIndexes are the indexes ListJobs may read for a status (or
// none) with or without a session.
func wantListIndexes(st askonce.Status, session bool) []string {
	switch st {
	case askonce.StatusPlanning, askonce.StatusPending:
		if session {
			// The tenant's jobs in progress or the session's jobs: both few.
			return []string{"jobs_active", "jobs_by_tenant_session"}
		}
		return []string{"jobs_active"}
	case askonce.StatusValidationError, askonce.StatusFailed, askonce.StatusCancelled, askonce.StatusExpired:
		if session {
			return []string{"jobs_ended_by_session"}
		}
		return []string{"jobs_ended"}
	}
	if session {
		return []string{"jobs_by_tenant_session"}
	}
	return []string{"jobs_by_tenant"}
}

// explain returns the generic plan PostgreSQL picks for a query, the one
// a prepared statement gets after its fifth run: the parameters' values
// are unknown to it, so it uses a partial index only where the query
// repeats the index's WHERE. (EXPLAIN of a query with parameters plans
// it for their values.)
func explain(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	ctx := t.Context()
	pooled, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The session's setting and statement go with the connection.
	conn := pooled.Hijack()
	defer conn.Close(context.Background())
	values := make([]string, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case string:
			values[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		case time.Time:
			values[i] = "'" + a.Format(time.RFC3339Nano) + "'"
		case int:
			values[i] = strconv.Itoa(a)
		case nil:
			values[i] = "NULL"
		default:
			t.Fatalf("argument %d: %T", i+1, a)
		}
	}
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan; PREPARE list AS "+query); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, "EXPLAIN EXECUTE list("+strings.Join(values, ", ")+")", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// fillJobs writes n jobs of tenant t straight into the jobs tables, ten
// per session (s0, s1, ...), a second apart and oldest first (job jN),
// and analyzes them: nearly all succeeded, one in a thousand failed and
// one in 997 is pending. Only the columns a list reads are real.
func fillJobs(t testing.TB, s *Store, n int) {
	t.Helper()
	if _, err := s.pool.Exec(context.Background(), fmt.Sprintf(`
		INSERT INTO jobs (id, tenant_id, session_id, mode, profile, hard_cap, title, status,
			clarification_status, error, version, created_at, updated_at)
		SELECT 'j' || i, 't', 's' || (i / 10), 'managed', '', '', '',
			CASE WHEN i %% 1000 = 0 THEN 'failed' WHEN i %% 997 = 0 THEN 'pending' ELSE 'success' END,
			'none', '', 1, now() - make_interval(secs => %[1]d - i), now()
		FROM generate_series(1, %[1]d) AS i;
		INSERT INTO jobs_static (id, goal) SELECT id, 'goal' FROM jobs;
		ANALYZE jobs, jobs_static`, n)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkListManyJobs fills a schema with ASKONCE_FILL_JOBS jobs
// (default 100,000; fillJobs: one tenant, ten per session, nearly all
// succeeded) and reports the p99 of ListJobs for every filter the API
// allows, 400 calls each: the newest page and the next, by each status,
// by a session, by both, and by status after a cursor. The SQLite
// store's figures come from the root package's BenchmarkManyJobs, which
// fills through the engine.
func BenchmarkListManyJobs(b *testing.B) {
	n := 100000
	if v := os.Getenv("ASKONCE_FILL_JOBS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("ASKONCE_FILL_JOBS=%q is not a positive number", v)
		}
	}
	s := openTest(b, Options{})
	start := time.Now()
	fillJobs(b, s, n)
	b.Logf("filled %d jobs in %s", n, time.Since(start).Round(time.Millisecond))
	ctx := b.Context()
	first, err := s.ListJobs(ctx, "t", askonce.JobFilter{})
	if err != nil {
		b.Fatal(err)
	}
	session := fmt.Sprint("s", n/20)
	filters := map[string]askonce.JobFilter{
		"list":         {},
		"list-page2":   {Cursor: first.NextCursor},
		"list-session": {SessionID: session},
	}
	for _, st := range askonce.Statuses {
		filters["list-"+string(st)] = askonce.JobFilter{Status: st}
		filters["list-session-"+string(st)] = askonce.JobFilter{Status: st, SessionID: session}
		filters["list-page2-"+string(st)] = askonce.JobFilter{Status: st, Cursor: first.NextCursor}
	}
	metrics := map[string]float64{}
	for b.Loop() {
		for name, f := range filters {
			ds := make([]time.Duration, 0, 400)
			for range 400 {
				t := time.Now()
				if _, err := s.ListJobs(ctx, "t", f); err != nil {
					b.Fatalf("%s: %v", name, err)
				}
				ds = append(ds, time.Since(t))
			}
			slices.Sort(ds)
			metrics[name+"-p99-ms"] = max(metrics[name+"-p99-ms"], float64(ds[len(ds)*99/100].Microseconds())/1000)
		}
	}
	for name, v := range metrics {
		b.ReportMetric(v, name)
	}
}
