package dispatch

import (
	"slices"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
)

// kindsOf returns what rows returns for jobID: the kinds of the job's
// River rows, oldest first.
func kindsOf(t *testing.T, rows func(jobID string) ([]string, error), jobID string) []string {
	t.Helper()
	kinds, err := rows(jobID)
	if err != nil {
		t.Fatal(err)
	}
	return kinds
}

// A job without a reach policy queues no River job beyond its channels'
// sends (neither when it asks nor when it is answered), on a dispatcher
// that runs reach policies; one with a policy queues a River job per
// step. On SQLite and PostgreSQL.
func TestRule18_ReachStepsAreScheduledOnlyForAJobWithAPolicy(t *testing.T) {
	t.Parallel()
	steps := []askonce.ReachStep{{After: "1h"}, {After: "2h", Email: []string{"oncall@example.com"}}}
	for _, db := range []string{"SQLite", "PostgreSQL"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			ch := newReachChannel(func(askonce.Send) error { return nil })
			var eng *askonce.Engine
			var rows func(jobID string) ([]string, error)
			if db == "SQLite" {
				sq, e := reachEngine(t, ch)
				eng = e
				rows = func(jobID string) ([]string, error) {
					r, err := sq.WriteDB().QueryContext(t.Context(), `SELECT kind FROM river_job WHERE json_extract(args, '$.jobId') = ? ORDER BY id`, jobID)
					if err != nil {
						return nil, err
					}
					defer r.Close()
					return scanKinds(r)
				}
			} else {
				rep := openPgReplica(t, pgtest.Schema(t), ch)
				eng = rep.eng
				rows = func(jobID string) ([]string, error) {
					r, err := rep.st.Pool().Query(t.Context(), `SELECT kind FROM river_job WHERE args->>'jobId' = $1 ORDER BY id`, jobID)
					if err != nil {
						return nil, err
					}
					defer r.Close()
					return scanKinds(r)
				}
			}
			question := channelKind(ch, "question")

			plain := askReach(t, eng)
			if _, _, err := eng.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: plain.ID, Answer: askonce.TextAnswer(anAnswer(plain))}); err != nil {
				t.Fatal(err)
			}
			if got := kindsOf(t, rows, plain.ID); !slices.Equal(got, []string{question}) {
				t.Errorf("River jobs of the job without a reach policy: %v, want its question's send alone %v", got, []string{question})
			}

			reached := askReach(t, eng, steps...)
			want := []string{question, reachKind, reachKind}
			if got := kindsOf(t, rows, reached.ID); !slices.Equal(got, want) {
				t.Errorf("River jobs of the job with two steps: %v, want %v", got, want)
			}
		})
	}
}

// scanKinds reads the one text column of rows: *sql.Rows or pgx.Rows.
func scanKinds(rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}) ([]string, error) {
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
