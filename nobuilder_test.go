package askonce_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/sqlite"
)

// Rule 11 with no builder (askonce serve --builder none): a success says
// its dispatch is none, instead of a queued that would never move, and
// queues nothing, on both write paths and whether the plan came at
// creation or after the answer.
func TestRule11_NoBuilderSuccessIsNoneAndQueuesNothing(t *testing.T) {
	t.Parallel()
	for _, p := range writePaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var queued atomic.Int32
			st, err := sqlite.Options{OnDispatch: func(context.Context, *sql.Tx, *askonce.Job) error {
				queued.Add(1)
				return nil
			}}.Open(ctx, filepath.Join(t.TempDir(), "askonce.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			e := &askonce.Engine{Store: st, Interpreter: onPath(rulesInterpreter(t), p.fast), NoBuilder: true}

			planned := create(t, e, "write the changelog then tag the release")
			asked := create(t, e, "hot frozen cheese")
			answered, _, err := e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: asked.ID, Answer: askonce.TextAnswer("hot")})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range []*askonce.Job{planned, answered} {
				if j.Status != askonce.StatusSuccess {
					t.Fatalf("job %q: status %s, want success", j.Goal, j.Status)
				}
				stored, err := e.Get(ctx, "", j.ID)
				if err != nil {
					t.Fatal(err)
				}
				if j.Dispatch != askonce.DispatchNoBuilder || stored.Dispatch != askonce.DispatchNoBuilder {
					t.Errorf("job %q: dispatch %q, stored %q, want none", j.Goal, j.Dispatch, stored.Dispatch)
				}
				if n := count(eventTypes(t, e, j), askonce.EventDispatched); n != 0 {
					t.Errorf("job %q: %d dispatched events with no builder", j.Goal, n)
				}
			}
			if n := queued.Load(); n != 0 {
				t.Errorf("%d dispatches queued with no builder", n)
			}
		})
	}
}
