package storetest

import (
	"testing"
	"time"

	"github.com/askonce/askonce"
)

var watchTests = []test{
	{"WatchWakesOnEveryCommitToTheJobOnly", func(t *testing.T, s askonce.Store) {
		w, ok := s.(askonce.Watcher)
		if !ok {
			t.Skip("the store is not an askonce.Watcher: its waiters poll")
		}
		tenant := NewTenant()
		// The other job first: see below.
		other := create(t, s, NewJob(tenant))
		j := create(t, s, NewJob(tenant))
		changed, unwatch := w.Watch(tenant, j.ID)
		defer unwatch()
		quiet, unwatchOther := w.Watch(tenant, other.ID)
		defer unwatchOther()

		woken := func(what string) {
			t.Helper()
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatalf("no wake-up within 10s of %s", what)
			}
		}
		next := j.Clone()
		next.Title = "renamed"
		update(t, s, &askonce.Change{Job: next, Events: []askonce.Event{{Type: askonce.EventResumed}}})
		woken("an UpdateJob")
		a := askonce.Attempt{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptInvalid, StartedAt: Now()}
		if err := s.AddAttempt(t.Context(), tenant, j.ID, a, askonce.Event{Type: askonce.EventAttempt}); err != nil {
			t.Fatal(err)
		}
		woken("an AddAttempt")
		// A store may wake every waiter once when it starts watching
		// (it may have missed changes), and a new PostgreSQL listener
		// may still be told of commits made just before it listened
		// (the two creates), after that. Two wake-ups of the job are
		// past both: at most one is the wake-up of all, and the other
		// comes from a notification of j's, which the other job's
		// creation preceded. From here on, only the job's own commits
		// wake its watch.
		select {
		case <-quiet:
		default:
		}
		a.N = 2
		if err := s.AddAttempt(t.Context(), tenant, j.ID, a, askonce.Event{Type: askonce.EventAttempt}); err != nil {
			t.Fatal(err)
		}
		woken("a second AddAttempt")
		select {
		case <-quiet:
			t.Error("a watch on another job was woken")
		default:
		}
	}},
}
