package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// A database written before planning leases (schema version 6) holds a
// managed job left in planning, a gate job planning and a pending job.
// Opening it gives none of them a lease, so that the managed planning job
// is taken over at once, as a restart recovered it before, and the store
// then keeps leases on it.
func TestMigrationToPlanningLeasesLeavesOldPlanningJobsLapsed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "askonce.db")
	old := migrateTo(t, path, 6)
	for _, q := range []string{
		`INSERT INTO jobs (id, tenant_id, session_id, mode, profile, hard_cap, title, status, clarification_status, error, version, created_at, updated_at)
			VALUES ('m', 't', 's', 'managed', '', 'fallback', 'M', 'planning', 'none', '', 1, 100, 100),
			       ('g', 't', 's', 'gate', '', 'fallback', 'G', 'planning', 'none', '', 1, 100, 100),
			       ('p', 't', 's', 'managed', '', 'fallback', 'P', 'pending', 'none', '', 2, 100, 200)`,
		`INSERT INTO jobs_static (id, goal) VALUES ('m', 'copper ore'), ('g', 'copper ore'), ('p', 'copper ore')`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	refs, err := s.LapsedLeases(ctx, askonce.LeaseQuery{Now: time.Unix(0, 1)})
	if err != nil || len(refs) != 1 || refs[0] != (askonce.JobRef{TenantID: "t", ID: "m"}) {
		t.Fatalf("lapsed leases after the migration: %v, %v; want job m alone", refs, err)
	}
	m, err := s.GetJob(ctx, "t", "m")
	if err != nil || m.Lease != (askonce.Lease{}) || m.Goal != "copper ore" {
		t.Fatalf("job m after the migration: %+v, %v; want it whole with no lease", m, err)
	}
	claimed := m.Clone()
	claimed.Lease = askonce.Lease{Owner: "replica-a", Until: time.Now().Add(time.Minute)}
	if err := s.UpdateJob(ctx, &askonce.Change{Job: claimed}); err != nil {
		t.Fatal(err)
	}
	refs, err = s.LapsedLeases(ctx, askonce.LeaseQuery{Now: time.Now()})
	if err != nil || len(refs) != 0 {
		t.Errorf("lapsed leases after the claim: %v, %v; want none", refs, err)
	}
	led, err := s.Lead(ctx, askonce.Leadership{Name: "sweep", Owner: "replica-a", Now: time.Now(), Until: time.Now().Add(time.Minute)})
	if err != nil || !led {
		t.Errorf("lead after the migration: %v, %v", led, err)
	}
}
