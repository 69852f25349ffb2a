package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// dispatchRow is one row of the builder queue, read with SQL.
type dispatchRow struct {
	tenant, status string
	createdAt      int64
}

func dispatchRowsOf(t *testing.T, s *Store, jobID string) []dispatchRow {
	t.Helper()
	rows, err := s.writer.QueryContext(t.Context(), `SELECT j.tenant_id, l.type, l.at FROM jobs j
		JOIN job_log l ON l.id = `+logIDSQL("j.log_seq", logDispatch)+` WHERE j.id = ?`, jobID)
	if err != nil {
		t.Fatalf("read dispatches: %v", err)
	}
	defer rows.Close()
	var out []dispatchRow
	for rows.Next() {
		var r dispatchRow
		if err := rows.Scan(&r.tenant, &r.status, &r.createdAt); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Rule 11 in the queue: a change that dispatches writes exactly one queued
// row, with the job's tenant and the time of the change; a success written
// without Dispatch and a change that loses its compare-and-set write none.
func TestDispatchWritesOneQueueRowWithTheSuccess(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := openTest(t, Options{Now: func() time.Time { return now }})
	ctx := t.Context()

	j := storetest.NewJob(storetest.NewTenant())
	if err := s.CreateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	stale := j.Clone()
	j.Status = askonce.StatusSuccess
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j}); err != nil {
		t.Fatal(err)
	}
	if rows := dispatchRowsOf(t, s, j.ID); len(rows) != 0 {
		t.Fatalf("success written without Dispatch: queue rows %v, want none", rows)
	}
	stale.Status = askonce.StatusSuccess
	if err := s.UpdateJob(ctx, &askonce.Change{Job: stale, Dispatch: true}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Fatalf("stale dispatch: %v, want conflict", err)
	}
	if rows := dispatchRowsOf(t, s, j.ID); len(rows) != 0 {
		t.Fatalf("a change that lost its compare-and-set queued %v", rows)
	}

	now = now.Add(time.Minute)
	if err := s.UpdateJob(ctx, &askonce.Change{Job: j, Dispatch: true}); err != nil {
		t.Fatal(err)
	}
	want := []dispatchRow{{tenant: j.TenantID, status: "queued", createdAt: now.UnixNano()}}
	if rows := dispatchRowsOf(t, s, j.ID); len(rows) != 1 || rows[0] != want[0] {
		t.Fatalf("queue rows %v, want %v", rows, want)
	}
}

// A job created with its outcome (a fast interpreter's) queues its
// dispatch and its question notification inside the create's transaction,
// and a hook that fails rolls the whole create back: no job, no events,
// no queue row.
func TestCreateJobRunsTheHooksInItsTransaction(t *testing.T) {
	t.Parallel()
	var notified, dispatched []string
	fail := false
	s := openTest(t, Options{
		OnDispatch: func(ctx context.Context, tx *sql.Tx, j *askonce.Job) error {
			if fail {
				return errors.New("queue is full")
			}
			dispatched = append(dispatched, j.ID)
			return nil
		},
		OnNotify: func(ctx context.Context, tx *sql.Tx, j *askonce.Job, ev askonce.QuestionEvent) error {
			notified = append(notified, j.ID+" "+string(ev))
			return nil
		},
	})
	ctx := t.Context()

	asked := storetest.NewJob(storetest.NewTenant())
	asked.Status, asked.ClarificationStatus = askonce.StatusPending, askonce.ClarificationAsked
	asked.Question = &askonce.Question{Type: askonce.QuestionFreeText, Text: "Which colour?"}
	if err := s.CreateJob(ctx, &askonce.Change{Job: asked, Notify: askonce.QuestionAsked}); err != nil {
		t.Fatal(err)
	}
	planned := storetest.NewJob(asked.TenantID)
	planned.Status = askonce.StatusSuccess
	if err := s.CreateJob(ctx, &askonce.Change{Job: planned, Dispatch: true}); err != nil {
		t.Fatal(err)
	}
	if want := []string{asked.ID + " question.asked"}; !slices.Equal(notified, want) {
		t.Errorf("notified %v, want %v", notified, want)
	}
	if !slices.Equal(dispatched, []string{planned.ID}) || len(dispatchRowsOf(t, s, planned.ID)) != 1 {
		t.Errorf("dispatched %v with queue rows %v, want %s once", dispatched, dispatchRowsOf(t, s, planned.ID), planned.ID)
	}

	fail = true
	lost := storetest.NewJob(asked.TenantID)
	lost.Status = askonce.StatusSuccess
	err := s.CreateJob(ctx, &askonce.Change{Job: lost, Dispatch: true, Events: []askonce.Event{{Type: askonce.EventCreated}}})
	if err == nil {
		t.Fatal("create with a failing dispatch hook succeeded")
	}
	if _, err := s.GetJob(ctx, lost.TenantID, lost.ID); askonce.ErrorCode(err) != askonce.ENOTFOUND {
		t.Errorf("job of the failed create: %v, want not found", err)
	}
	if rows := dispatchRowsOf(t, s, lost.ID); len(rows) != 0 {
		t.Errorf("queue rows of the failed create: %v", rows)
	}
}
