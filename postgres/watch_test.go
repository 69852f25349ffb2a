package postgres

import (
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/storetest"
)

// A watch through one store wakes on a change committed through another
// (another replica), and not on a change that failed.
func TestWatchWakesOnAnotherStoresCommits(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	var stores [2]*Store
	for i := range stores {
		s, err := Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	a, b := stores[0], stores[1]
	ctx := t.Context()
	// Every watch is woken once when b starts listening: after that
	// wake-up of a first watch, b listens.
	first, unwatchFirst := b.Watch("t", "none")
	defer unwatchFirst()
	waitWoken(t, first, "b starting to listen")

	// The watch starts before the job exists: started after the create,
	// it could still receive the create's notification, late, and count
	// it as the next commit's.
	j := storetest.NewJob(storetest.NewTenant())
	changed, unwatch := b.Watch(j.TenantID, j.ID)
	defer unwatch()
	if err := a.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	waitWoken(t, changed, "the create through the other store")
	next := j.Clone()
	next.Title = "renamed"
	if err := a.UpdateJob(ctx, &askonce.Change{Job: next}); err != nil {
		t.Fatal(err)
	}
	waitWoken(t, changed, "a commit through the other store")

	stale := j.Clone() // version 1; the job is at 2
	if err := a.UpdateJob(ctx, &askonce.Change{Job: stale}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("stale update: %v, want ECONFLICT", err)
	}
	if err := a.AddAttempt(ctx, j.TenantID, j.ID, askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid}, askonce.Event{}); err != nil {
		t.Fatal(err)
	}
	waitWoken(t, changed, "an attempt added through the other store")
	select {
	case <-changed:
		t.Error("two wake-ups for one commit after a failed change: the failed one notified")
	case <-time.After(300 * time.Millisecond):
	}
}

// waitWoken waits for a watch's wake-up on ch, failing the test if none
// comes within 10 s of what should have caused it.
func waitWoken(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no wake-up within 10s of %s", what)
	}
}
