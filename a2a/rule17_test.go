package a2a_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/askonce/askonce"
)

// Rule 17 over A2A: once nobody answered in time, the task's status
// message says so, whether the destructive step's "no" answered (the
// task completes) or the job expired without a default (it fails).
func TestRule17_TaskStatusSaysNobodyAnsweredAndWhatBecameOfIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var offset atomic.Int64
	e.eng.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	c := e.client(keyA)
	del := send(t, c, userText("", "", "delete notes.md and update the readme"))
	cheese := send(t, c, userText("", "", "hot frozen cheese"))
	offset.Add(int64(askonce.DefaultQuestionTTL))
	if n, err := e.eng.ExpireDue(context.Background()); n != 2 || err != nil {
		t.Fatalf("expired %d, %v; want 2", n, err)
	}
	for _, tc := range []struct {
		id    sdk.TaskID
		state sdk.TaskState
		note  string
	}{
		{del.ID, sdk.TaskStateCompleted, "Nobody answered within 24h; the default “no” was used."},
		{cheese.ID, sdk.TaskStateFailed, "Nobody answered within 24h, and the question had no default; the job expired."},
	} {
		got, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: tc.id})
		if err != nil {
			t.Fatal(err)
		}
		if text := textPart(got.Status.Message.Parts); got.Status.State != tc.state || !strings.Contains(text, tc.note) {
			t.Errorf("task %s: %s %q; want %s saying %q", tc.id, got.Status.State, text, tc.state, tc.note)
		}
	}
}
