package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// The plan SQLite picks for ListJobs by each status: the in-progress
// statuses must seek jobs_active (migration 00009) instead of scanning
// every job of the tenant, and no filter may sort (storetest checks
// what the lists return).
func TestListByInProgressStatusUsesTheActiveIndex(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, st := range askonce.Statuses {
		for _, cursor := range []bool{false, true} {
			bits := listByStatus
			if st == askonce.StatusPlanning || st == askonce.StatusPending {
				bits |= listActive
			}
			args := []any{"t", string(st)}
			if cursor {
				bits |= listAfter
				args = append(args, int64(1), "x")
			}
			args = append(args, 10)
			all := queryPlan(t, s.reader, listQuery(bits), args...)
			usesActive := strings.Contains(all, "USING INDEX jobs_active")
			if want := bits&listActive != 0; usesActive != want {
				t.Errorf("status %s (cursor %v): plan %q, uses jobs_active %v, want %v", st, cursor, all, usesActive, want)
			}
			if strings.Contains(all, "TEMP B-TREE") {
				t.Errorf("status %s (cursor %v): plan sorts: %q", st, cursor, all)
			}
		}
	}
}

// The sweeps seek their indexes, never the table: DueQuestions the first
// due question in jobs_due, LapsedLeases the planning jobs in
// jobs_active (migration 00010).
func TestSweepsSeekTheirIndexes(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	for _, q := range []struct {
		name, query string
		args        []any
		want        string
	}{
		{"DueQuestions", dueQuestionsSQL, []any{int64(1), 10}, "SEARCH jobs USING INDEX jobs_due (clarification_expires_at>? AND clarification_expires_at<?)"},
		{"LapsedLeases", lapsedLeasesSQL, []any{int64(1), "owner", 10}, "SEARCH jobs USING COVERING INDEX jobs_active (status=?)"},
	} {
		if plan := queryPlan(t, s.reader, q.query, q.args...); !strings.HasPrefix(plan, q.want) {
			t.Errorf("%s: plan %q, want %q", q.name, plan, q.want)
		}
	}
}
