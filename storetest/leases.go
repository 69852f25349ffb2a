package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// leased returns a new managed job of tenant in status planning under
// owner's lease until until.
func leased(tenant, owner string, until time.Time) *askonce.Job {
	j := NewJob(tenant)
	j.Lease = askonce.Lease{Owner: owner, Until: until}
	return j
}

var leaseTests = []test{
	{"LeaseIsKeptWithTheJob", func(t *testing.T, s askonce.Store) {
		j := create(t, s, leased(NewTenant(), "replica-a", Now().Add(time.Minute)))
		checkJob(t, "created job", j, get(t, s, j.TenantID, j.ID))

		next := j.Clone()
		next.Lease = askonce.Lease{Owner: "replica-b", Until: Now().Add(time.Hour)}
		update(t, s, &askonce.Change{Job: next})
		checkJob(t, "job after a claim", next, get(t, s, j.TenantID, j.ID))

		done := next.Clone()
		done.Status, done.Lease = askonce.StatusFailed, askonce.Lease{}
		update(t, s, &askonce.Change{Job: done})
		if got := get(t, s, j.TenantID, j.ID); got.Lease != (askonce.Lease{}) {
			t.Errorf("lease of a failed job: %+v, want none", got.Lease)
		}
	}},
	{"LapsedLeasesOfEveryTenantManagedPlanningOnly", func(t *testing.T, s askonce.Store) {
		now := Now()
		a, b := NewTenant(), NewTenant()
		job := func(j *askonce.Job) *askonce.Job { return create(t, s, j) }
		lapsed := []*askonce.Job{
			job(leased(a, "dead", now.Add(-time.Minute))),
			job(leased(b, "dead", now.Add(-time.Hour))),
			job(leased(b, "dead", now)),     // lapses at now
			job(leased(a, "", time.Time{})), // no lease at all
		}
		job(leased(a, "alive", now.Add(time.Microsecond))) // lapses later
		gate := leased(a, "dead", now.Add(-time.Hour))
		gate.Mode = askonce.ModeGate // the agent plans
		job(gate)
		waiting := leased(b, "dead", now.Add(-time.Hour))
		waiting.Status = askonce.StatusPending // waits for a human
		job(waiting)
		done := leased(b, "dead", now.Add(-time.Hour))
		done.Status = askonce.StatusSuccess
		job(done)

		refs, err := s.LapsedLeases(t.Context(), askonce.LeaseQuery{Now: now})
		if err != nil {
			t.Fatalf("lapsed leases: %v", err)
		}
		checkRefs(t, "lapsed leases", refs, lapsed)
		refs, err = s.LapsedLeases(t.Context(), askonce.LeaseQuery{Now: now, Limit: 2})
		if err != nil || len(refs) != 2 {
			t.Errorf("lapsed leases, limit 2: %v, %v; want 2", refs, err)
		}
	}},
	{"LapsedLeasesOfAnOwnerIncludeItsLiveOnes", func(t *testing.T, s askonce.Store) {
		now := Now()
		tenant := NewTenant()
		mine := create(t, s, leased(tenant, "replica-a", now.Add(time.Hour)))
		create(t, s, leased(tenant, "replica-b", now.Add(time.Hour)))
		gone := create(t, s, leased(tenant, "replica-b", now.Add(-time.Hour)))

		refs, err := s.LapsedLeases(t.Context(), askonce.LeaseQuery{Now: now, Owner: "replica-a"})
		if err != nil {
			t.Fatalf("lapsed leases: %v", err)
		}
		checkRefs(t, "lapsed leases and replica-a's", refs, []*askonce.Job{mine, gone})
	}},
	{"RenewLeasesMovesOnlyTheOwnersPlanningLeases", func(t *testing.T, s askonce.Store) {
		now := Now()
		tenant := NewTenant()
		mine := create(t, s, leased(tenant, "replica-a", now.Add(time.Second)))
		theirs := create(t, s, leased(tenant, "replica-b", now.Add(time.Second)))
		settled := leased(tenant, "replica-a", now.Add(time.Second))
		settled.Status = askonce.StatusPending
		create(t, s, settled)

		until := now.Add(time.Minute)
		refs := []askonce.JobRef{{TenantID: tenant, ID: mine.ID}, {TenantID: tenant, ID: theirs.ID}, {TenantID: tenant, ID: settled.ID}}
		n, err := s.RenewLeases(t.Context(), askonce.LeaseRenewal{Owner: "replica-a", Until: until, Jobs: refs})
		if err != nil || n != 1 {
			t.Fatalf("renew: %d, %v; want 1 lease renewed", n, err)
		}
		got := get(t, s, tenant, mine.ID)
		if !got.Lease.Until.Equal(until) || got.Lease.Owner != "replica-a" {
			t.Errorf("renewed lease: %+v, want replica-a's until %v", got.Lease, until)
		}
		if got.Version != mine.Version || !got.UpdatedAt.Equal(mine.UpdatedAt) {
			t.Errorf("renewing moved version %d -> %d, updatedAt %v -> %v; want neither", mine.Version, got.Version, mine.UpdatedAt, got.UpdatedAt)
		}
		checkJob(t, "another owner's job", theirs, get(t, s, tenant, theirs.ID))
		checkJob(t, "a pending job", settled, get(t, s, tenant, settled.ID))
		refsNow, err := s.LapsedLeases(t.Context(), askonce.LeaseQuery{Now: now.Add(2 * time.Second)})
		if err != nil {
			t.Fatalf("lapsed leases: %v", err)
		}
		checkRefs(t, "lapsed leases after the renewal", refsNow, []*askonce.Job{theirs})
	}},
	{"LeadIsOneOwnersUntilItsTermEnds", func(t *testing.T, s askonce.Store) {
		now := Now()
		lead := func(owner string, at time.Time) bool {
			t.Helper()
			ok, err := s.Lead(t.Context(), askonce.Leadership{Name: "sweep", Owner: owner, Now: at, Until: at.Add(time.Minute)})
			if err != nil {
				t.Fatalf("lead as %s: %v", owner, err)
			}
			return ok
		}
		if !lead("replica-a", now) {
			t.Fatal("replica-a did not get a lead no one held")
		}
		if lead("replica-b", now.Add(time.Second)) {
			t.Fatal("replica-b took a lead replica-a holds")
		}
		if !lead("replica-a", now.Add(30*time.Second)) { // renewed until +90s
			t.Fatal("replica-a could not renew its own lead")
		}
		if lead("replica-b", now.Add(80*time.Second)) {
			t.Fatal("replica-b took a renewed lead before it lapsed")
		}
		if !lead("replica-b", now.Add(90*time.Second)) {
			t.Fatal("replica-b did not get a lead that lapsed")
		}
		if lead("replica-a", now.Add(91*time.Second)) {
			t.Fatal("replica-a took its lapsed lead back from replica-b")
		}
		other, err := s.Lead(t.Context(), askonce.Leadership{Name: "other", Owner: "replica-a", Now: now, Until: now.Add(time.Minute)})
		if err != nil || !other {
			t.Errorf("another name: %v, %v; want replica-a to lead it", other, err)
		}
	}},
}

// sharedLeaseTests are the lease cases of RunShared.
var sharedLeaseTests = []sharedTest{
	{"OneOfTwoStoresClaimsALapsedLease", func(t *testing.T, a, b askonce.Store) {
		// Each round, both read a job whose lease lapsed and claim it at
		// once with a compare-and-set: exactly one claim wins.
		for range 20 {
			j := create(t, a, leased(NewTenant(), "dead", Now().Add(-time.Minute)))
			// Both read before either writes, as two sweeps that ran
			// the same query do.
			stores := []askonce.Store{a, b}
			claims := make([]*askonce.Job, 2)
			for i, s := range stores {
				claims[i] = get(t, s, j.TenantID, j.ID).Clone()
				claims[i].Lease = askonce.Lease{Owner: []string{"replica-a", "replica-b"}[i], Until: Now().Add(time.Minute)}
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, s := range stores {
				wg.Go(func() {
					errs[i] = s.UpdateJob(t.Context(), &askonce.Change{Job: claims[i], Events: []askonce.Event{{Type: askonce.EventRecovered}}})
				})
			}
			wg.Wait()
			won := 0
			for _, err := range errs {
				switch askonce.ErrorCode(err) {
				case "":
					won++
				case askonce.ECONFLICT:
				default:
					t.Fatalf("claim: %v", err)
				}
			}
			got := get(t, b, j.TenantID, j.ID)
			if won != 1 || got.Version != 2 || len(events(t, a, j.TenantID, j.ID)) != 2 {
				t.Fatalf("%d claims won, version %d; want exactly one claim, one recovered event", won, got.Version)
			}
		}
	}},
	{"OneOfTwoStoresLeads", func(t *testing.T, a, b askonce.Store) {
		for i := range 20 {
			now := Now()
			name := "sweep-" + NewID()
			var wg sync.WaitGroup
			led := make([]bool, 2)
			for k, s := range []askonce.Store{a, b} {
				wg.Go(func() {
					var err error
					led[k], err = s.Lead(t.Context(), askonce.Leadership{Name: name, Owner: []string{"replica-a", "replica-b"}[k], Now: now, Until: now.Add(time.Minute)})
					if err != nil {
						t.Errorf("round %d: lead: %v", i, err)
					}
				})
			}
			wg.Wait()
			if led[0] == led[1] {
				t.Fatalf("round %d: replica-a leads %v, replica-b leads %v; want exactly one", i, led[0], led[1])
			}
		}
	}},
}
