// Package storetest is the conformance suite of askonce.Store: one
// specification of how a store behaves, run unchanged against every
// implementation (packages sqlite and postgres). It tests only through the
// askonce.Store interface. RunIdempotency is the suite of the HTTP API's
// askonce.IdempotencyStore, which the same stores implement.
//
// An implementation's test calls Run with a function that opens a fresh,
// empty store:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) askonce.Store {
//			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "askonce.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// RunShared holds the cross-connection cases: two stores on one database
// racing the same compare-and-sets, as replicas do.
//
// The fixtures (NewJob, FullJob, NewTenant, JobDiff) are exported for
// other packages' tests.
package storetest

import (
	"testing"

	"github.com/askonce/askonce"
)

// test is one behaviour, checked against a store of its own.
type test struct {
	name string
	run  func(t *testing.T, s askonce.Store)
}

// Run runs the whole suite against the stores open returns. open is
// called once per behaviour and must return a new store that no other
// subtest uses and that holds no jobs (the sweeps of DueQuestions and
// LapsedLeases see every tenant). Run closes each store when its subtest
// ends. The subtests run in parallel.
func Run(t *testing.T, open func(t *testing.T) askonce.Store) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Job", jobTests},
		{"CreateJob", createTests},
		{"Tenancy", tenancyTests},
		{"UpdateJob", updateTests},
		{"Attempts", attemptTests},
		{"Events", eventTests},
		{"History", historyTests},
		{"Memory", memoryTests},
		{"Dispatch", dispatchTests},
		{"ListJobs", listTests},
		{"Sweeps", sweepTests},
		{"Leases", leaseTests},
		{"Watch", watchTests},
		{"AnswerLinks", linkTests},
		{"Messages", messageTests},
		{"PushConfigs", pushTests},
		{"TypedAnswers", typedTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					s := open(t)
					t.Cleanup(func() {
						if err := s.Close(); err != nil {
							t.Errorf("close store: %v", err)
						}
					})
					tc.run(t, s)
				})
			}
		})
	}
}

// create stores j with a created event, failing the test on error.
func create(t *testing.T, s askonce.Store, j *askonce.Job) *askonce.Job {
	t.Helper()
	if err := s.CreateJob(t.Context(), &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
		t.Fatalf("create job: %v", err)
	}
	return j
}

// update writes c, failing the test on error.
func update(t *testing.T, s askonce.Store, c *askonce.Change) {
	t.Helper()
	if err := s.UpdateJob(t.Context(), c); err != nil {
		t.Fatalf("update job: %v", err)
	}
}

// get reads a job, failing the test on error.
func get(t *testing.T, s askonce.Store, tenant, id string) *askonce.Job {
	t.Helper()
	j, err := s.GetJob(t.Context(), tenant, id)
	if err != nil {
		t.Fatalf("get job: %v", err)
	}
	return j
}

// events reads all of a job's events, failing the test on error.
func events(t *testing.T, s askonce.Store, tenant, id string) []askonce.Event {
	t.Helper()
	evs, err := s.Events(t.Context(), askonce.EventQuery{TenantID: tenant, JobID: id, Limit: 1000})
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	return evs
}

// attempts reads a job's attempts, failing the test on error.
func attempts(t *testing.T, s askonce.Store, tenant, id string) []askonce.Attempt {
	t.Helper()
	as, err := s.Attempts(t.Context(), tenant, id)
	if err != nil {
		t.Fatalf("attempts: %v", err)
	}
	return as
}

func eventTypes(evs []askonce.Event) []askonce.EventType {
	out := make([]askonce.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
