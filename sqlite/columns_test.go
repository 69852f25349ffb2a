package sqlite

import (
	"slices"
	"testing"

	"github.com/askonce/askonce/internal/sqlstore"
)

// jobTable names every column of jobs and the job columns of job_log
// (those of its kind 0 record), and no other, so
// that a column added by a migration and not to jobTable (or the other way
// round) fails here rather than reading back as the zero value.
func TestJobTableMatchesTheSchema(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	for _, tc := range []struct {
		table string
		cols  []*sqlstore.Column
		extra []string // columns of the table that are not job fields
	}{
		{"jobs", jobsColumns, []string{"log_seq", "result_attempt"}},
		{"job_log", staticColumns, []string{"id", "at"}},
	} {
		rows, err := s.writer.QueryContext(t.Context(), `SELECT name FROM pragma_table_info(?)`, tc.table)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
		}
		rows.Close()
		want := slices.Clone(tc.extra)
		for _, c := range tc.cols {
			want = append(want, c.Name)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("columns of %s: %v, jobTable has %v", tc.table, got, want)
		}
	}
}
