package askonce_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// Rule 13 across processes: a job another process plans under a live
// lease is left alone; once the lease lapses (the process died), another
// takes it over, records a recovered event and finishes it.
func TestRule13_AnotherProcessTakesOverALapsedLeaseOnly(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	a := &askonce.Engine{Store: st, Owner: "replica-a", PlanningLease: time.Hour, Interpreter: scripted(blocked(stuck, planRaw))}
	j, _, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Lease.Owner != "replica-a" {
		t.Fatalf("created job's lease: %+v, want replica-a's", j.Lease)
	}

	b := &askonce.Engine{Store: st, Owner: "replica-b", Interpreter: scripted(reply(planRaw, u1))}
	if n, err := b.TakeOver(ctx); err != nil || n != 0 {
		t.Fatalf("took over %d jobs under a live lease: %v", n, err)
	}
	// Replica A dies: its lease is no longer renewed, and lapses.
	b.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if n, err := b.TakeOver(ctx); err != nil || n != 1 {
		t.Fatalf("took over %d jobs after the lease lapsed: %v; want 1", n, err)
	}
	if err := b.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ctx, "", j.ID)
	if err != nil || got.Status != askonce.StatusSuccess || count(eventTypes(t, b, got), askonce.EventRecovered) != 1 {
		t.Fatalf("after the takeover: %+v, %v; want success with one recovered event", got, err)
	}
	if got.Lease != (askonce.Lease{}) {
		t.Errorf("lease of a finished job: %+v, want none", got.Lease)
	}
}

// A run that outlasts many leases keeps its job: the engine renews its
// lease while it runs, so no other process takes the job over.
func TestRule13_ALongRunRenewsItsLease(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	release := make(chan struct{})
	a := &askonce.Engine{Store: st, Owner: "replica-a", PlanningLease: time.Second, Interpreter: scripted(blocked(release, planRaw))}
	j, run, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	b := &askonce.Engine{Store: st, Owner: "replica-b", Interpreter: scripted(reply(planRaw, u1))}
	// Over three leases; a renewal may be late by up to two thirds of
	// one (a loaded machine) before the job is taken over.
	for range 8 {
		time.Sleep(400 * time.Millisecond)
		if n, err := b.TakeOver(ctx); err != nil || n != 0 {
			t.Fatalf("took over %d jobs of a run in flight: %v", n, err)
		}
	}
	close(release)
	run.Wait(ctx)
	if got, err := run.Result(); err != nil || got.Status != askonce.StatusSuccess {
		t.Fatalf("run: %+v, %v", got, err)
	}
	if n := count(eventTypes(t, a, j), askonce.EventRecovered); n != 0 {
		t.Errorf("%d recovered events, want none", n)
	}
}

// Of the processes sharing a store, one sweeps at a time; when it stops
// (dies), another leads once its term lapsed.
func TestSweepRunsInOneProcessAtATime(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	engines := []*askonce.Engine{
		{Store: st, Owner: "replica-a", PlanningLease: time.Minute, Now: now},
		{Store: st, Owner: "replica-b", PlanningLease: time.Minute, Now: now},
	}
	sweep := func(e *askonce.Engine) bool {
		t.Helper()
		sw, err := e.Sweep(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return sw.Led
	}
	if !sweep(engines[0]) || sweep(engines[1]) {
		t.Fatal("want replica-a to lead the first sweep, and replica-b not")
	}
	for range 3 {
		if sweep(engines[1]) || !sweep(engines[0]) {
			t.Fatal("the lead changed while replica-a kept sweeping")
		}
	}
	// replica-a stops sweeping: a minute on, replica-b leads.
	mu.Lock()
	clock = clock.Add(time.Minute)
	mu.Unlock()
	if !sweep(engines[1]) || sweep(engines[0]) {
		t.Fatal("want replica-b to lead once replica-a's term lapsed")
	}
}
