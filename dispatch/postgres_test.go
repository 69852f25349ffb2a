package dispatch

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/storetest"
	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// recorder is a builder that accepts every job and remembers which.
type recorder struct {
	mu  sync.Mutex
	ids []string
}

func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Deliver(_ context.Context, j *askonce.Job) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, j.ID)
	return nil
}

func (r *recorder) delivered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

// riverJobsOf counts the deliveries River holds for an askonce job.
func riverJobsOf(t *testing.T, st *postgres.Store, jobID string) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(t.Context(), `SELECT count(*) FROM river_job
		WHERE kind = $1 AND args->>'jobId' = $2`, jobKind, jobID).Scan(&n); err != nil {
		t.Fatalf("count river jobs: %v", err)
	}
	return n
}

// Rule 11 on PostgreSQL: the River job of a delivery (riverpgxv5) is
// inserted in the transaction of the success, so that it commits with
// it, and with nothing else: a change that loses its compare-and-set, or
// that fails after queueing, leaves no delivery; the one queued is then
// delivered by the dispatcher.
func TestPostgresSuccessQueuesItsDeliveryInItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var (
		hook      Hook
		failAfter atomic.Bool
	)
	st, err := postgres.Options{OnDispatch: func(ctx context.Context, tx pgx.Tx, j *askonce.Job) error {
		if err := hook.EnqueuePgx(ctx, tx, j); err != nil {
			return err
		}
		if failAfter.Load() {
			return errors.New("a failure after the delivery was queued")
		}
		return nil
	}}.Open(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := &recorder{}
	cfg := testConfig(b)
	cfg.Pool, cfg.Store = st.Pool(), st
	d, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hook.Set(d)

	create := func() *askonce.Job {
		j := storetest.NewJob(storetest.NewTenant())
		if err := st.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	succeed := func(j *askonce.Job) error {
		next := j.Clone()
		next.Status = askonce.StatusSuccess
		return st.UpdateJob(ctx, &askonce.Change{Job: next, Dispatch: true, Events: []askonce.Event{{Type: askonce.EventDispatched}}})
	}

	won := create()
	if err := succeed(won); err != nil {
		t.Fatalf("success: %v", err)
	}
	if n := riverJobsOf(t, st, won.ID); n != 1 {
		t.Fatalf("%d deliveries queued with the success, want 1", n)
	}

	lost := create()
	stale := lost.Clone()
	lost.Title = "moved on"
	if err := st.UpdateJob(ctx, &askonce.Change{Job: lost}); err != nil {
		t.Fatal(err)
	}
	if err := succeed(stale); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("stale success: %v, want conflict", err)
	}
	if n := riverJobsOf(t, st, lost.ID); n != 0 {
		t.Fatalf("a success that lost its compare-and-set queued %d deliveries", n)
	}

	failAfter.Store(true)
	if err := succeed(lost); err == nil {
		t.Fatal("a success whose transaction failed after queueing was written")
	}
	failAfter.Store(false)
	if n := riverJobsOf(t, st, lost.ID); n != 0 {
		t.Fatalf("a rolled-back success left %d deliveries queued", n)
	}
	if got, err := st.GetJob(ctx, lost.TenantID, lost.ID); err != nil || got.Status != askonce.StatusPlanning || got.Dispatch != "" {
		t.Fatalf("after the rolled-back success the job is %+v (%v), want planning, not dispatched", got, err)
	}

	if err := d.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Stop(context.WithoutCancel(ctx))
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, err := st.GetJob(ctx, won.TenantID, won.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.Dispatch == askonce.DispatchDelivered {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queued delivery was not made in 30s: dispatch status %q", j.Dispatch)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := b.delivered(); len(got) != 1 || got[0] != won.ID {
		t.Fatalf("builder got %v, want only %s", got, won.ID)
	}
}
