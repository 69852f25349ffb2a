package dispatch

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/postgres/pgtest"
)

// pgReplica is one askonce process on a shared PostgreSQL database: its
// store, dispatcher (with ch) and engine.
type pgReplica struct {
	st  *postgres.Store
	eng *askonce.Engine
}

func openPgReplica(t *testing.T, dsn string, ch askonce.Channel) *pgReplica {
	t.Helper()
	ctx := t.Context()
	hook := new(Hook)
	st, err := postgres.Options{OnDispatch: hook.EnqueuePgx, OnNotify: hook.NotifyPgx}.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(nil)
	cfg.Pool, cfg.Store, cfg.Channels = st.Pool(), st, []askonce.Channel{ch}
	d, err := New(ctx, cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	hook.Set(d)
	if err := d.Start(ctx); err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		d.Stop(sctx)
		st.Close()
	})
	return &pgReplica{st: st, eng: &askonce.Engine{Store: st, Interpreter: asker{}, ReachMinInterval: 100 * time.Millisecond}}
}

func (r *pgReplica) stepStates(t *testing.T, jobID string) []string {
	t.Helper()
	rows, err := r.st.Pool().Query(t.Context(), `SELECT state FROM river_job WHERE kind = $1 AND args->>'jobId' = $2 ORDER BY id`, reachKind, jobID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// On PostgreSQL, two processes on one database run a step once between
// them, and an answer cancels the steps not yet run in its transaction.
func TestRule18_PostgresReachStepRunsOnceAcrossReplicasAndTheAnswerCancelsTheRest(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	ok := func(askonce.Send) error { return nil }
	cha, chb := newReachChannel(ok), newReachChannel(ok)
	a := openPgReplica(t, dsn, cha)
	b := openPgReplica(t, dsn, chb)
	j := askReach(t, a.eng, askonce.ReachStep{After: "500ms"}, askonce.ReachStep{After: "1h"})
	reminders := func() int {
		n := 0
		for _, ch := range []*reachChannel{cha, chb} {
			for _, s := range ch.triesOf("a@example.com") {
				if s.Kind == "remind" {
					n++
				}
			}
		}
		return n
	}
	waitFor(t, "the first step's reminder", func() bool { return reminders() >= 1 })
	waitFor(t, "the first step completed", func() bool { return b.stepStates(t, j.ID)[0] == "completed" })
	if _, _, err := b.eng.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(anAnswer(j))}); err != nil {
		t.Fatal(err)
	}
	if got := a.stepStates(t, j.ID); !slices.Equal(got, []string{"completed", "cancelled"}) {
		t.Errorf("steps right after the answer: %v; want the first completed, the second cancelled", got)
	}
	if n := reminders(); n != 1 {
		t.Errorf("%d reminders from two replicas; want 1", n)
	}
}
