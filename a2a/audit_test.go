package a2a_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
)

// A message on a task that is not input-required (completed, canceled)
// is refused as an invalid request that says the task's state: only its
// one question takes a message.
func TestMessageOnATaskThatIsNotInputRequiredIsRefusedSayingItsState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	ctx := context.Background()
	done := send(t, c, userText("", "", "hot frozen cheese"))
	send(t, c, userText(done.ContextID, done.ID, "hot"))
	canceled := send(t, c, userText("", "", "hot frozen cheese"))
	if _, err := c.CancelTask(ctx, &sdk.CancelTaskRequest{ID: canceled.ID}); err != nil {
		t.Fatal(err)
	}
	for _, task := range []*sdk.Task{done, canceled} {
		_, err := c.SendMessage(ctx, userText(task.ContextID, task.ID, "frozen"))
		if !errors.Is(err, sdk.ErrInvalidRequest) || !strings.Contains(err.Error(), "not input-required") {
			t.Errorf("message on task %s: %v; want invalid request saying it is not input-required", task.ID, err)
		}
	}
}

// ListTasks refuses a negative historyLength, and statusTimestampAfter
// keeps only the tasks changed after it, in the page and in totalSize.
func TestListTasksRefusesANegativeHistoryAndFiltersByStatusTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	ctx := context.Background()
	if _, err := c.ListTasks(ctx, &sdk.ListTasksRequest{HistoryLength: ptr(-1)}); !errors.Is(err, sdk.ErrInvalidParams) {
		t.Errorf("historyLength -1: %v; want invalid params", err)
	}
	old := send(t, c, userText("", "", "hot frozen cheese"))
	got, err := c.GetTask(ctx, &sdk.GetTaskRequest{ID: old.ID})
	if err != nil {
		t.Fatal(err)
	}
	after := *got.Status.Timestamp
	// Two tasks changed after it (the store's clock may give the next
	// task the same instant: those are sent again).
	for n := 0; n < 2; {
		if fresh := send(t, c, userText("", "", "hot frozen cheese")); fresh.Status.Timestamp.After(after) {
			n++
		}
	}
	page, err := c.ListTasks(ctx, &sdk.ListTasksRequest{StatusTimestampAfter: &after})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range page.Tasks {
		if task.ID == old.ID {
			t.Errorf("the task last changed at %v is listed after it", after)
		}
	}
	all, err := c.ListTasks(ctx, &sdk.ListTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalSize >= all.TotalSize || page.TotalSize != len(page.Tasks) || len(page.Tasks) < 2 {
		t.Errorf("totalSize after %v: %d of %d listed (all: %d); want the newer tasks only", after, page.TotalSize, len(page.Tasks), all.TotalSize)
	}
}
