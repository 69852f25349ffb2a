package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
	"github.com/askonce/askonce/storetest"
)

// The plan SQLite picks for ListJobs for every filter the API allows
// (status, session, cursor, and each combination): each seeks an index
// on every filter it can, none scans the tenant's jobs to find a status
// few jobs have, and none sorts (storetest checks what the lists
// return). The in-progress statuses seek jobs_active (migration 00009),
// the rare ended ones jobs_ended and jobs_ended_by_session (00012);
// success, nearly every job's, reads the tenant's or session's jobs.
func TestListJobsSeeksAnIndexForEveryFilter(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	for _, st := range append([]askonce.Status{""}, askonce.Statuses...) {
		for _, session := range []string{"", "s"} {
			for _, cursor := range []string{"", sqlstore.EncodeCursor(1, "x")} {
				f := askonce.JobFilter{Status: st, SessionID: session, Cursor: cursor}
				bits, args, err := sqlstore.ListArgs(encoding{}, "t", f)
				if err != nil {
					t.Fatal(err)
				}
				want := "SEARCH j USING INDEX " + wantListIndex(st, session != "")
				if cursor != "" {
					want = strings.TrimSuffix(want, ")") + " AND (created_at,id)<(?,?))"
				}
				plan := queryPlan(t, s.reader, listQuery(bits), args...)
				if !strings.HasPrefix(plan, want+";") {
					t.Errorf("status %q, session %q, cursor %v: plan %q, want it to start %q", st, session, cursor != "", plan, want)
				}
				if strings.Contains(plan, "TEMP B-TREE") {
					t.Errorf("status %q, session %q, cursor %v: plan sorts: %q", st, session, cursor != "", plan)
				}
			}
		}
	}
}

// wantListIndex is the index, with the terms it seeks, that ListJobs
// should read for a status (or none) with or without a session.
func wantListIndex(st askonce.Status, session bool) string {
	switch {
	case st == askonce.StatusPlanning || st == askonce.StatusPending:
		if session {
			// A session's jobs are few; jobs_active has no session.
			return "jobs_by_tenant_session (tenant_id=? AND session_id=?)"
		}
		return "jobs_active (status=? AND tenant_id=?)"
	case st != "" && st != askonce.StatusSuccess:
		if session {
			return "jobs_ended_by_session (tenant_id=? AND session_id=? AND status=?)"
		}
		return "jobs_ended (tenant_id=? AND status=?)"
	case session:
		return "jobs_by_tenant_session (tenant_id=? AND session_id=?)"
	}
	return "jobs_by_tenant (tenant_id=?)"
}

// The sweeps seek their index, never the table: DueQuestions the pending
// jobs in jobs_active (migration 00018), LapsedLeases the planning jobs
// (migration 00010).
func TestSweepsSeekTheirIndexes(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	for _, q := range []struct {
		name, query string
		args        []any
		want        string
	}{
		{"DueQuestions", sqlstore.DueQuestions.In(sqlstore.Question), []any{int64(1), 10}, "SEARCH jobs USING COVERING INDEX jobs_active (status=?)"},
		{"LapsedLeases", lapsedLeasesSQL, []any{int64(1), "owner", 10}, "SEARCH jobs USING COVERING INDEX jobs_active (status=?)"},
	} {
		if plan := queryPlan(t, s.reader, q.query, q.args...); !strings.HasPrefix(plan, q.want) {
			t.Errorf("%s: plan %q, want %q", q.name, plan, q.want)
		}
	}
}

// Migration 00018 folds jobs_due into jobs_active: a store migrated up
// and down and up again finds the same due question each way, and each
// schema's DueQuestions reads its own index.
func TestMigrationOfTheDueIndexKeepsDueQuestions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "askonce.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	tenant := storetest.NewTenant()
	now := time.Now()
	var due askonce.JobRef
	for i, expires := range []time.Time{now.Add(time.Hour), now.Add(-time.Minute)} {
		j := storetest.NewJob(tenant)
		j.Status, j.ClarificationStatus = askonce.StatusPending, askonce.ClarificationAsked
		j.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?", ExpiresAt: &expires}
		if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			due = askonce.JobRef{TenantID: tenant, ID: j.ID}
		}
	}
	s.Close()

	old := migrateDown(t, path, 18, 17)
	const dueBefore = `SELECT tenant_id, id FROM jobs WHERE status = 'pending' AND clarification_expires_at IS NOT NULL
		AND clarification_expires_at <= ? ORDER BY clarification_expires_at, id LIMIT 10`
	if plan := queryPlan(t, old, dueBefore, now.UnixNano()); !strings.HasPrefix(plan, "SEARCH jobs USING INDEX jobs_due ") {
		t.Errorf("due questions at version 17: plan %q, want jobs_due", plan)
	}
	var got askonce.JobRef
	if err := old.QueryRowContext(ctx, dueBefore, now.UnixNano()).Scan(&got.TenantID, &got.ID); err != nil || got != due {
		t.Errorf("due question at version 17: %v, %v; want %v", got, err, due)
	}
	old.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if plan := queryPlan(t, s.reader, sqlstore.DueQuestions.In(sqlstore.Question), now.UnixNano(), 10); !strings.HasPrefix(plan, "SEARCH jobs USING COVERING INDEX jobs_active ") {
		t.Errorf("due questions after the migration: plan %q, want jobs_active", plan)
	}
	refs, err := s.DueQuestions(ctx, now, 10)
	if err != nil || len(refs) != 1 || refs[0] != due {
		t.Errorf("due questions after the migration: %v, %v; want %v alone", refs, err, due)
	}
}

// The statements of a clarification round trip that write a job build
// no temporary b-tree but the one RETURNING needs: the partial indexes'
// WHERE (jobs_active's two statuses, jobs_ended's four, migration 00019)
// is tested with comparisons, where a list of more than two constants
// in IN made SQLite build, fill and drop a b-tree of them for the row
// each INSERT writes and for the old and new row of each UPDATE.
func TestJobWritesBuildNoTemporaryBTreeButReturnings(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	for _, c := range []struct {
		name string
		st   *wstmt
		want int
	}{
		{"insertJob", s.w.insertJob, 1},
		{"updateJob", s.w.updateJob, 1},
		{"updateFixed", s.w.updateFixed, 0},
	} {
		if got := opcodes(t, s, c.st.query)["OpenEphemeral"]; got != c.want {
			t.Errorf("%s opens %d temporary b-trees, want %d", c.name, got, c.want)
		}
	}
}

// A migration down from 00019 gives the ended jobs' indexes back their
// IN form, and both forms hold the same jobs.
func TestMigrationOfTheEndedIndexesKeepsTheirJobs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "askonce.db")
	db := migrateTo(t, path, 18)
	for i, st := range []string{"failed", "success", "expired", "pending", "cancelled", "validation_error"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO jobs (id, tenant_id, session_id, mode, profile, hard_cap, title,
			status, clarification_status, error, version, created_at, updated_at)
			VALUES (?, 't', 's', 'm', 'p', 'h', 'x', ?, 'none', '', 1, ?, ?)`, fmt.Sprint("job-", i), st, i, i); err != nil {
			t.Fatal(err)
		}
	}
	ended := func(db *sql.DB, index string) int {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM jobs INDEXED BY "+index+
			` WHERE tenant_id = 't'
			AND (status = 'validation_error' OR status = 'failed' OR status = 'cancelled' OR status = 'expired')`).Scan(&n); err != nil {
			t.Fatalf("%s: %v", index, err)
		}
		return n
	}
	db.Close()
	s, err := Options{}.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{"jobs_ended", "jobs_ended_by_session"} {
		if n := ended(s.reader, index); n != 4 {
			t.Errorf("%s holds %d jobs after the migration, want the 4 that ended other than in success", index, n)
		}
	}
	s.Close()
	db = migrateDown(t, path, 19, 18)
	var in int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name IN ('jobs_ended', 'jobs_ended_by_session')
		AND sql LIKE '%status IN (''validation_error'', ''failed'', ''cancelled'', ''expired'')'`).Scan(&in); err != nil || in != 2 {
		t.Errorf("ended indexes in the IN form after the migration down: %d, %v; want 2", in, err)
	}
}

// opcodes counts the opcodes of query's program on s's writer.
func opcodes(t *testing.T, s *Store, query string) map[string]int {
	t.Helper()
	// EXPLAIN wants the statement's arguments; any values do.
	args := make([]any, strings.Count(query, "?"))
	rows, err := s.writer.QueryContext(t.Context(), "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ops := map[string]int{}
	for rows.Next() {
		var addr, p1, p2, p3 int
		var op string
		var p4, p5, comment any
		if err := rows.Scan(&addr, &op, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			t.Fatal(err)
		}
		ops[op]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ops
}
