package sqlite

import (
	"context"
	"reflect"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/sqlstore"
	"github.com/askonce/askonce/storetest"
)

// preparedOnWriter reports whether the writer's driver connection has q
// prepared: whether a read of q ran there.
func preparedOnWriter(s *Store, q *sqlstore.Stmt) bool {
	s.writing.Lock()
	defer s.writing.Unlock()
	id := s.writeShared.get(q).id
	return s.raw != nil && id < len(s.raw.stmts) && s.raw.stmts[id] != nil
}

// A read of one row runs on the writer's connection when the writer is
// idle, and on the reader pool when it is busy, and both return what the
// reader pool returns: the job as last committed, and a missing job as
// ENOTFOUND.
func TestReadOfOneRowRunsOnTheIdleWriterAndReadsTheSame(t *testing.T) {
	s := openTest(t, Options{})
	ctx := context.Background()
	j := storetest.FullJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	if preparedOnWriter(s, own.GetJob) {
		t.Fatal("GetJob prepared on the writer before any read")
	}
	idle, err := s.GetJob(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !preparedOnWriter(s, own.GetJob) {
		t.Error("a read with the writer idle did not run on the writer's connection")
	}
	s.writing.Lock() // the writer is busy: a read must not wait for it
	busy, err := s.GetJob(ctx, j.TenantID, j.ID)
	_, missing := s.GetJob(ctx, j.TenantID, storetest.NewID())
	s.writing.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(idle, busy) {
		t.Errorf("the idle writer read\n%+v\nthe reader pool\n%+v", idle, busy)
	}
	if askonce.ErrorCode(missing) != askonce.ENOTFOUND {
		t.Errorf("a missing job on the reader pool: %v, want ENOTFOUND", missing)
	}
	if _, err := s.GetJob(ctx, j.TenantID, storetest.NewID()); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Errorf("a missing job on the idle writer: %v, want ENOTFOUND", err)
	}
	j.Title = "changed"
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetJob(ctx, j.TenantID, j.ID); err != nil || got.Title != "changed" || got.Version != j.Version {
		t.Errorf("after an update the idle writer read %+v, %v; want title %q, version %d", got, err, "changed", j.Version)
	}
}
