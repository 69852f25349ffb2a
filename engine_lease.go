package askonce

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Planning leases (docs/protocol.md rule 13 across processes). Every write
// that leaves a managed job in planning gives it a lease: this engine's
// Owner until PlanningLease from now. While the engine runs the job's
// planning loop it renews that lease every third of PlanningLease, all its
// runs' leases in one store call. A job whose lease lapsed was left by a
// process that died (or hung); another takes it over with a
// compare-and-set (TakeOver), so only one of them does. A run whose job
// was taken over loses its own compare-and-set at the end and keeps the
// stored outcome, so a job still has one outcome.

// leases are the planning runs in flight in this engine.
type leases struct {
	mu       sync.Mutex
	owner    string
	held     map[JobRef]int // runs per job
	renewing bool           // a renew loop is running
}

// owner returns the engine's Owner, or a random one chosen once.
func (e *Engine) owner() string {
	if e.Owner != "" {
		return e.Owner
	}
	e.leases.mu.Lock()
	defer e.leases.mu.Unlock()
	if e.leases.owner == "" {
		e.leases.owner = uuid.NewString()
	}
	return e.leases.owner
}

// lease gives j, about to be written, the lease its status calls for:
// this engine's for a managed job in planning, none otherwise.
func (e *Engine) lease(j *Job) {
	if j.Mode == ModeManaged && j.Status == StatusPlanning {
		j.Lease = Lease{Owner: e.owner(), Until: e.now().Add(e.planningLease())}
		return
	}
	j.Lease = Lease{}
}

// hold records that a planning run of j is in flight, so that its lease
// is renewed until the returned function is called.
func (e *Engine) hold(j *Job) (release func()) {
	ref := JobRef{TenantID: j.TenantID, ID: j.ID}
	l := &e.leases
	l.mu.Lock()
	if l.held == nil {
		l.held = map[JobRef]int{}
	}
	l.held[ref]++
	if !l.renewing {
		l.renewing = true
		go e.renew()
	}
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.held[ref]--; l.held[ref] <= 0 {
			delete(l.held, ref)
		}
	}
}

// holds reports whether a planning run of the job is in flight in this
// engine.
func (e *Engine) holds(r JobRef) bool {
	e.leases.mu.Lock()
	defer e.leases.mu.Unlock()
	return e.leases.held[r] > 0
}

// renew renews the leases of the runs in flight every third of the lease,
// until none is left.
func (e *Engine) renew() {
	t := time.NewTicker(max(e.planningLease()/3, time.Millisecond))
	defer t.Stop()
	for range t.C {
		refs := e.inFlight()
		if refs == nil {
			return
		}
		r := LeaseRenewal{Owner: e.owner(), Until: e.now().Add(e.planningLease()), Jobs: refs}
		if _, err := e.Store.RenewLeases(context.Background(), r); err != nil {
			// The next tick tries again; a lease that lapses meanwhile
			// may cost a second run in another process (never in this
			// one, see resume), not a second outcome.
			e.logger().Warn("renew planning leases", "jobs", len(refs), "err", err)
		}
	}
}

// inFlight returns the jobs with runs in flight; nil when there are none,
// and then the renew loop is over.
func (e *Engine) inFlight() []JobRef {
	l := &e.leases
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.held) == 0 {
		l.renewing = false
		return nil
	}
	return l.refs()
}

// refs returns the jobs in held; l.mu must be held.
func (l *leases) refs() []JobRef {
	refs := make([]JobRef, 0, len(l.held))
	for r := range l.held {
		refs = append(refs, r)
	}
	return refs
}

// ReleaseLeases ends the leases of the runs still in flight at once, so
// that another process (or the next start) takes their jobs over without
// waiting for them to lapse. Call it at shutdown when Drain gave up: the
// runs it cuts off end with the process.
func (e *Engine) ReleaseLeases(ctx context.Context) error {
	e.leases.mu.Lock()
	refs := e.leases.refs()
	e.leases.mu.Unlock()
	if len(refs) == 0 {
		return nil
	}
	_, err := e.Store.RenewLeases(ctx, LeaseRenewal{Owner: e.owner(), Until: e.now(), Jobs: refs})
	return err
}
