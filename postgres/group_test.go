package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// groupFixture is a store on one connection (so that every statement is
// prepared once, by the warm-up, and a group's flights are the group's)
// whose group commit the test holds: changes queue until release.
type groupFixture struct {
	t      *testing.T
	w      *wire
	s      *Store
	tenant string
}

func newGroupFixture(t *testing.T) *groupFixture {
	w := &wire{}
	f := &groupFixture{t: t, w: w, s: w.open(t, Options{}, pgtest.Schema(t)+"&pool_max_conns=2"), tenant: storetest.NewTenant()}
	// Warm-up: a create and an answer prepare the statements, on each of
	// the two connections in turn, the other one held meanwhile.
	acquire := func() *pgxpool.Conn {
		c, err := f.s.pool.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	held := [2]*pgxpool.Conn{acquire(), acquire()}
	for i := range held {
		held[i].Release()
		f.ask(f.create(fmt.Sprintf("00000000-0000-7000-8000-0000000000f%d", i)))
		held[i] = acquire()
	}
	held[0].Release()
	held[1].Release()
	return f
}

func (f *groupFixture) create(id string) *askonce.Job {
	f.t.Helper()
	j := &askonce.Job{ID: id, TenantID: f.tenant, Goal: "hot frozen cheese", Status: askonce.StatusPlanning,
		ClarificationStatus: askonce.ClarificationNone}
	if err := f.s.CreateJob(f.t.Context(), &askonce.Change{Job: j, Events: []askonce.Event{{Type: askonce.EventCreated}}}); err != nil {
		f.t.Fatal(err)
	}
	return j
}

// asking is the change that asks j's question, computed from j as it is.
func asking(j *askonce.Job) *askonce.Change {
	n := *j
	n.Status, n.ClarificationStatus = askonce.StatusPending, askonce.ClarificationAsked
	n.Question = &askonce.Question{Type: askonce.QuestionConfirm, Text: "Overwrite?", Options: []string{"yes", "no"}}
	return &askonce.Change{Job: &n,
		Attempts: []askonce.Attempt{{N: 1, Reason: askonce.ReasonInitial, Outcome: askonce.AttemptQuestion}},
		Events:   []askonce.Event{{Type: askonce.EventAttempt}, {Type: askonce.EventAsked}}}
}

func (f *groupFixture) ask(j *askonce.Job) {
	f.t.Helper()
	if err := f.s.UpdateJob(f.t.Context(), asking(j)); err != nil {
		f.t.Fatal(err)
	}
}

// grouped runs the writes as one group: it holds the group commit, starts
// each write, waits until all of them queue, and releases them. It
// returns their errors, and the flights (network round trips) from the
// release to the last write's return.
func (f *groupFixture) grouped(writes ...func(ctx context.Context) error) ([]error, int64) {
	g := &f.s.group
	all := make(chan struct{})
	g.mu.Lock()
	g.busy = maxInFlight
	g.queued = func(n int) {
		if n == len(writes) {
			close(all)
		}
	}
	g.mu.Unlock()
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, write := range writes {
		wg.Go(func() { errs[i] = write(f.t.Context()) })
	}
	<-all
	_, flights := f.w.count(func() {
		f.s.next()
		wg.Wait()
	})
	g.mu.Lock()
	g.queued = nil
	if g.busy != 0 || len(g.waiting) != 0 {
		f.t.Errorf("after the group: %d groups in flight, %d changes waiting; want none", g.busy, len(g.waiting))
	}
	g.mu.Unlock()
	return errs, flights
}

// transactions returns how many transactions last wrote the jobs' rows.
func (f *groupFixture) transactions(jobs ...*askonce.Job) int {
	f.t.Helper()
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	var n int
	if err := f.s.pool.QueryRow(f.t.Context(), `SELECT count(DISTINCT xmin::text) FROM jobs WHERE tenant_id = $1 AND id = ANY($2)`,
		f.tenant, ids).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// Changes that wait while a commit is in flight are sent together: one
// network round trip and one transaction for all of them, whose
// notifications wake each job's watchers at commit, and each change
// gets its own results (its version, its events' ids).
func TestRule12_ConcurrentChangesShareOneTransaction(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	// Every watch is woken once when the store starts listening: after
	// that wake-up of a first watch, it listens.
	first, unwatchFirst := f.s.Watch(f.tenant, "none")
	defer unwatchFirst()
	waitWoken(t, first, "starting to listen")
	var jobs []*askonce.Job
	var changes []*askonce.Change
	var writes []func(context.Context) error
	var watches []<-chan struct{}
	for i := range 5 {
		// Watched before it exists, and its create's wake-up taken.
		id := fmt.Sprintf("00000000-0000-7000-8000-%012d", i+1)
		changed, unwatch := f.s.Watch(f.tenant, id)
		defer unwatch()
		j := f.create(id)
		waitWoken(t, changed, "a create")
		watches = append(watches, changed)
		c := asking(j)
		jobs, changes = append(jobs, j), append(changes, c)
		writes = append(writes, func(ctx context.Context) error { return f.s.UpdateJob(ctx, c) })
	}
	errs, flights := f.grouped(writes...)
	for i, err := range errs {
		if err != nil {
			t.Errorf("change %d: %v", i, err)
		}
	}
	if flights != 1 {
		t.Errorf("5 changes took %d network round trips; want 1", flights)
	}
	if n := f.transactions(jobs...); n != 1 {
		t.Errorf("5 changes committed in %d transactions; want 1", n)
	}
	for i, changed := range watches {
		waitWoken(t, changed, fmt.Sprintf("the grouped change of job %d", i))
	}
	seen := map[int64]bool{}
	for i, c := range changes {
		got, err := f.s.GetJob(t.Context(), f.tenant, jobs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != c.Job.Version || got.Status != askonce.StatusPending {
			t.Errorf("job %d: stored version %d, status %s; the change says version %d; want status pending", i, got.Version, got.Status, c.Job.Version)
		}
		for _, e := range c.Events {
			if e.ID == 0 || seen[e.ID] {
				t.Errorf("job %d: event %s has id %d (zero or another's)", i, e.Type, e.ID)
			}
			seen[e.ID] = true
		}
	}
}

// A change of a group that fails for what it holds (a compare-and-set
// that lost, a job that exists) fails alone, with the error it gets
// alone, and the others of its group commit, together.
func TestRule2_GroupedChangeThatLostItsAskFailsAlone(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	a := f.create("00000000-0000-7000-8000-000000000001")
	stale := f.create("00000000-0000-7000-8000-000000000002")
	b := f.create("00000000-0000-7000-8000-000000000003")
	lost := asking(stale)
	f.ask(stale) // the stored version moves: lost's compare-and-set loses
	dup := &askonce.Job{ID: a.ID, TenantID: f.tenant, Goal: "again", Status: askonce.StatusPlanning,
		ClarificationStatus: askonce.ClarificationNone}
	ca, cb := asking(a), asking(b)
	errs, _ := f.grouped(
		func(ctx context.Context) error { return f.s.UpdateJob(ctx, ca) },
		func(ctx context.Context) error { return f.s.UpdateJob(ctx, lost) },
		func(ctx context.Context) error { return f.s.CreateJob(ctx, &askonce.Change{Job: dup}) },
		func(ctx context.Context) error { return f.s.UpdateJob(ctx, cb) },
	)
	if errs[0] != nil || errs[3] != nil {
		t.Errorf("the changes that hold no fault: %v, %v; want both committed", errs[0], errs[3])
	}
	// Alone, the same changes fail with these errors.
	for i, want := range map[int]error{
		1: f.s.UpdateJob(t.Context(), lost),
		2: f.s.CreateJob(t.Context(), &askonce.Change{Job: dup}),
	} {
		if errs[i] == nil || askonce.ErrorCode(errs[i]) != askonce.ECONFLICT || errs[i].Error() != want.Error() {
			t.Errorf("grouped change %d failed with %v; alone it fails with %v (want that, ECONFLICT)", i, errs[i], want)
		}
	}
	if n := f.transactions(a, b); n != 1 {
		t.Errorf("the two changes that committed did so in %d transactions; want 1", n)
	}
	for _, j := range []*askonce.Job{a, b} {
		got, err := f.s.GetJob(t.Context(), f.tenant, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != askonce.StatusPending {
			t.Errorf("job %s: status %s; want pending (its change committed)", j.ID, got.Status)
		}
	}
}

// An event appended to a job that does not exist is ENOTFOUND in a group
// as alone (its check is a read, not a failed statement, and the insert
// after it fails on the job's key, which rolls the group back and sends
// each change again alone), and the change grouped with it commits.
func TestGroupedEventOfAMissingJobIsNotFound(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	a := f.create("00000000-0000-7000-8000-000000000001")
	ca := asking(a)
	errs, _ := f.grouped(
		func(ctx context.Context) error { return f.s.UpdateJob(ctx, ca) },
		func(ctx context.Context) error {
			return f.s.AppendEvent(ctx, askonce.Event{TenantID: f.tenant, JobID: "00000000-0000-7000-8000-000000000009", Type: askonce.EventAttempt})
		},
	)
	if errs[0] != nil {
		t.Errorf("the change of a job that exists: %v; want committed", errs[0])
	}
	if askonce.ErrorCode(errs[1]) != askonce.ENOTFOUND {
		t.Errorf("the event of a missing job: %v; want ENOTFOUND", errs[1])
	}
	got, err := f.s.GetJob(t.Context(), f.tenant, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != askonce.StatusPending {
		t.Errorf("job %s: status %s; want pending (its change committed)", a.ID, got.Status)
	}
}

// The compare-and-set rewrites jobs_static in the same statement, and
// only when the change changes it: a transition leaves the row as
// created (its xmin stays), a change of the goal is stored.
func TestUpdateRewritesStaticColumnsOnlyWhenChanged(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()
	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	xmin := func() string {
		var x string
		if err := s.pool.QueryRow(ctx, `SELECT xmin::text FROM jobs_static WHERE id = $1`, j.ID).Scan(&x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	created := xmin()
	next := j.Clone()
	next.Title = "renamed"
	if err := s.UpdateJob(ctx, &askonce.Change{Job: next}); err != nil {
		t.Fatal(err)
	}
	if x := xmin(); x != created {
		t.Errorf("a transition rewrote jobs_static (xmin %s, created %s)", x, created)
	}
	again := next.Clone()
	again.Goal = "a goal of its own"
	if err := s.UpdateJob(ctx, &askonce.Change{Job: again}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetJob(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Goal != again.Goal || got.Title != "renamed" {
		t.Errorf("after changing the goal: goal %q, title %q; want %q, renamed", got.Goal, got.Title, again.Goal)
	}
	if x := xmin(); x == created {
		t.Errorf("changing the goal left jobs_static as created")
	}
}
