package a2a_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/jackc/pgx/v5"

	"github.com/askonce/askonce/postgres"
)

// riverKinds returns the kinds of the River jobs about each askonce job,
// by job id, oldest first.
func riverKinds(t *testing.T, e *env) map[string][]string {
	t.Helper()
	var rows scanner
	var err error
	if e.sqlite != nil {
		var r *sql.Rows
		r, err = e.sqlite.WriteDB().QueryContext(t.Context(), `SELECT args ->> '$.jobId', kind FROM river_job ORDER BY id`)
		if err == nil {
			defer r.Close()
			rows = r
		}
	} else {
		var r pgx.Rows
		r, err = e.st.(*postgres.Store).Pool().Query(t.Context(), `SELECT args->>'jobId', kind FROM river_job ORDER BY id`)
		if err == nil {
			defer r.Close()
			rows = r
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for rows.Next() {
		var id, kind string
		if err := rows.Scan(&id, &kind); err != nil {
			t.Fatal(err)
		}
		out[id] = append(out[id], kind)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// scanner is what *sql.Rows and pgx.Rows share.
type scanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// With push on, a task's changes queue River jobs only when the task has
// a push config as the change is written (Pusher.SendsTx): a task
// without one costs none, as with push off (which runs no River at all);
// a config costs River work for its own task only. A config stored after
// the task asked gets the task's end, and no input-required POST.
func TestPushQueuesRiverJobsOnlyForTasksWithAConfig(t *testing.T) {
	t.Parallel()
	for _, db := range []struct {
		name     string
		postgres bool
	}{{"SQLite", false}, {"PostgreSQL", true}} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e, recv, c, withConfig := askWithPush(t, envOptions{postgres: db.postgres}, "a", "token-a")
			without := send(t, c, userText("", "", "hot frozen cheese"))
			late := send(t, c, userText("", "", "hot frozen cheese"))
			for _, task := range []*sdk.Task{withConfig, without, late} {
				if task.Status.State != sdk.TaskStateInputRequired {
					t.Fatalf("task %s is %s, want input-required", task.ID, task.Status.State)
				}
			}
			checkPush(t, recv.wait(t, "/a", 1)[0], withConfig.ID, sdk.TaskStateInputRequired, "token-a")
			if _, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: late.ID, ID: "late", URL: recv.URL + "/late", Token: "token-late"}); err != nil {
				t.Fatal(err)
			}
			for _, task := range []*sdk.Task{withConfig, without, late} {
				if done := send(t, c, userText(task.ContextID, task.ID, "hot")); done.Status.State != sdk.TaskStateCompleted {
					t.Fatalf("answered task %s is %s, want completed", task.ID, done.Status.State)
				}
			}
			checkPush(t, recv.waitState(t, "/a", sdk.TaskStateCompleted), withConfig.ID, sdk.TaskStateCompleted, "token-a")
			checkPush(t, recv.waitState(t, "/late", sdk.TaskStateCompleted), late.ID, sdk.TaskStateCompleted, "token-late")

			// Every change queued its River jobs in its own transaction,
			// so they are all in the table by now.
			got := riverKinds(t, e)
			want := map[string][]string{
				string(withConfig.ID): {"askonce_a2a-push_input-required", "askonce_a2a-push_settled"},
				string(late.ID):       {"askonce_a2a-push_settled"},
			}
			for id, kinds := range want {
				if !slices.Equal(got[id], kinds) {
					t.Errorf("River jobs of task %s: %v, want %v", id, got[id], kinds)
				}
			}
			if kinds := got[string(without.ID)]; len(kinds) != 0 {
				t.Errorf("the task without a push config queued River jobs %v; want none, as with push off", kinds)
			}
			if len(got) != len(want) {
				t.Errorf("River jobs of %d tasks (%v), want of %d", len(got), got, len(want))
			}
			if n := len(recv.wait(t, "/late", 0)); n != 1 {
				t.Errorf("the config stored after the ask got %d POSTs; want the end's alone", n)
			}
		})
	}
}
