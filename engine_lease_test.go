package askonce_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// An engine without PlanningLease gives a managed job in planning a lease
// of DefaultPlanningLease.
func TestRule13_AnUnsetPlanningLeaseIsTheDefault(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	a := &askonce.Engine{Store: st, Owner: "replica-a", Now: func() time.Time { return now }, Interpreter: scripted(blocked(stuck, planRaw))}
	j, _, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := now.Add(askonce.DefaultPlanningLease); !got.Lease.Until.Equal(want) {
		t.Errorf("stored lease until %s, want %s (now + DefaultPlanningLease)", got.Lease.Until, want)
	}
}

// storedLease polls the job's stored lease until ok accepts it, failing
// the test after 10 s.
func storedLease(t *testing.T, e *askonce.Engine, id string, ok func(askonce.Lease) bool) askonce.Lease {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := e.Get(ctx, "", id)
		if err != nil {
			t.Fatal(err)
		}
		if ok(j.Lease) {
			return j.Lease
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: lease %+v after 10 s", id, j.Lease)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// An engine without Owner renews the leases of its long runs too, under
// the owner it chose for itself.
func TestRule13_ALongRunRenewsItsLeaseWithoutAnOwnerSet(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	a := &askonce.Engine{Store: st, PlanningLease: 300 * time.Millisecond, Interpreter: scripted(blocked(stuck, planRaw))}
	j, _, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Lease.Owner == "" {
		t.Fatalf("lease of the started job: %+v, want an owner", j.Lease)
	}
	renewed := storedLease(t, a, j.ID, func(l askonce.Lease) bool { return l.Until.After(j.Lease.Until) })
	if renewed.Owner != j.Lease.Owner {
		t.Errorf("renewed lease's owner %q, want the engine's %q", renewed.Owner, j.Lease.Owner)
	}
}

// renewCounter counts a store's RenewLeases calls.
type renewCounter struct {
	askonce.Store
	renewals atomic.Int64
}

func (r *renewCounter) RenewLeases(ctx context.Context, l askonce.LeaseRenewal) (int, error) {
	r.renewals.Add(1)
	return r.Store.RenewLeases(ctx, l)
}

// renewing reports whether e's renew loop is running.
func renewing(e *askonce.Engine) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Contains(string(buf[:n]), fmt.Sprintf("(*Engine).renew(%p", e))
		}
		buf = make([]byte, 2*len(buf))
	}
}

// The renew loop ends with the engine's last run: its goroutine is gone
// and renews nothing more; the next run starts it again.
func TestRule13_TheRenewLoopEndsWithTheLastRun(t *testing.T) {
	t.Parallel()
	st := &renewCounter{Store: openStore(t, filepath.Join(t.TempDir(), "askonce.db"))}
	release := make(chan struct{})
	a := &askonce.Engine{Store: st, Owner: "replica-a", PlanningLease: 30 * time.Millisecond,
		Interpreter: scripted(blocked(release, planRaw), blocked(release, planRaw))}
	j, run, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	storedLease(t, a, j.ID, func(l askonce.Lease) bool { return st.renewals.Load() > 0 })
	if !renewing(a) {
		t.Fatal("no renew loop while a run is in flight")
	}
	release <- struct{}{}
	run.Wait(ctx)
	if got, err := run.Result(); err != nil || got.Status != askonce.StatusSuccess {
		t.Fatalf("run: %+v, %v", got, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for renewing(a) {
		if time.Now().After(deadline) {
			t.Fatal("the renew loop still runs 10 s after the last run ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	after := st.renewals.Load()
	// The next run renews its lease again.
	j2, run2, err := a.Start(ctx, askonce.CreateRequest{Goal: "make more cheese"})
	if err != nil {
		t.Fatal(err)
	}
	storedLease(t, a, j2.ID, func(l askonce.Lease) bool { return l.Until.After(j2.Lease.Until) })
	if st.renewals.Load() <= after {
		t.Error("the second run's lease moved without a renewal")
	}
	close(release)
	run2.Wait(ctx)
}

// ReleaseLeases ends the leases of the runs in flight at once: another
// engine takes their jobs over without waiting for them to lapse.
func TestRule13_ReleasedLeasesAreTakenOverAtOnce(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	planning := make(chan struct{})
	a := &askonce.Engine{Store: st, Owner: "replica-a", PlanningLease: time.Hour, Interpreter: scripted(func(r *askonce.Request) (*askonce.Response, error) {
		close(planning)
		return blocked(stuck, planRaw)(r)
	})}
	j, _, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	<-planning // the run is in flight, its lease held
	b := &askonce.Engine{Store: st, Owner: "replica-b", Interpreter: scripted(reply(planRaw, u1))}
	if n, err := b.TakeOver(ctx); err != nil || n != 0 {
		t.Fatalf("took over %d jobs under a live lease: %v", n, err)
	}
	if err := a.ReleaseLeases(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := b.TakeOver(ctx); err != nil || n != 1 {
		t.Fatalf("took over %d jobs after ReleaseLeases: %v; want 1", n, err)
	}
	if err := b.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ctx, "", j.ID)
	if err != nil || got.Status != askonce.StatusSuccess || count(eventTypes(t, b, got), askonce.EventRecovered) != 1 {
		t.Fatalf("after the takeover: %+v, %v; want success with one recovered event", got, err)
	}
}

// renewedMeanwhile is a store on which the owner of every lapsed lease
// renews it right after LapsedLeases found it: the process was slow, not
// dead.
type renewedMeanwhile struct {
	askonce.Store
	owner string
	until time.Time
}

func (r *renewedMeanwhile) LapsedLeases(ctx context.Context, q askonce.LeaseQuery) ([]askonce.JobRef, error) {
	refs, err := r.Store.LapsedLeases(ctx, q)
	if err != nil || len(refs) == 0 {
		return refs, err
	}
	if _, err := r.Store.RenewLeases(ctx, askonce.LeaseRenewal{Owner: r.owner, Until: r.until, Jobs: refs}); err != nil {
		return nil, err
	}
	return refs, nil
}

// Recover leaves a job whose lease its owner renewed between
// LapsedLeases and the read of the job.
func TestRule13_RecoverSkipsALeaseRenewedSinceItWasFoundLapsed(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	a := &askonce.Engine{Store: st, Owner: "replica-a", PlanningLease: time.Minute, Interpreter: scripted(blocked(stuck, planRaw))}
	j, _, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour) // replica-a's lease has lapsed by then
	b := &askonce.Engine{Store: &renewedMeanwhile{Store: st, owner: "replica-a", until: later.Add(time.Minute)}, Owner: "replica-b",
		Now: func() time.Time { return later }, Interpreter: scripted(reply(planRaw, u1))}
	if n, err := b.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("recovered %d jobs whose lease was renewed meanwhile: %v; want 0", n, err)
	}
	got, err := a.Get(ctx, "", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != askonce.StatusPlanning || got.Lease.Owner != "replica-a" || count(eventTypes(t, a, got), askonce.EventRecovered) != 0 {
		t.Errorf("after Recover: status %s, lease %+v, events %v; want replica-a's job left alone", got.Status, got.Lease, eventTypes(t, a, got))
	}
}

// Rule 13 in one process: when a renewal comes late (a loaded machine)
// and the engine's own sweep finds its lease lapsed, it leaves the job to
// the run it has in flight instead of starting a second one.
func TestRule13_TakeOverLeavesTheEnginesOwnRunInFlightAlone(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "askonce.db"))
	var ahead atomic.Int64
	stuck, entered := make(chan struct{}), make(chan struct{})
	interpret := blocked(stuck, planRaw)
	a := &askonce.Engine{Store: st, Owner: "replica-a", PlanningLease: time.Hour,
		Interpreter: scripted(func(r *askonce.Request) (*askonce.Response, error) {
			close(entered)
			return interpret(r)
		}),
		Now: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }}
	j, run, err := a.Start(ctx, askonce.CreateRequest{Goal: "make cheese"})
	if err != nil {
		t.Fatal(err)
	}
	<-entered // the run is in flight: its planning loop called the interpreter
	// Two hours on, no renewal came: the lease has lapsed, but the run is
	// still in flight here.
	ahead.Store(int64(2 * time.Hour))
	if n, err := a.TakeOver(ctx); err != nil || n != 0 {
		t.Fatalf("took over %d of its own jobs with a run in flight: %v; want 0", n, err)
	}
	close(stuck)
	run.Wait(ctx)
	if got, err := run.Result(); err != nil || got.Status != askonce.StatusSuccess {
		t.Fatalf("run: %+v, %v", got, err)
	}
	if n := count(eventTypes(t, a, j), askonce.EventRecovered); n != 0 {
		t.Errorf("%d recovered events, want none", n)
	}
}
