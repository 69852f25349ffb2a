package a2a_test

import (
	"context"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
)

// An input-required push whose task was answered before it went out is
// not POSTed (the end's push tells the outcome), and each of the task's
// configs gets a notify_skipped event saying so: every state change is
// either pushed or recorded as not pushed.
func TestRule12_InputRequiredPushOfATaskAnsweredFirstIsRecordedAsSkipped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	recv := newReceiver(t)
	ctx := context.Background()
	c := e.client(keyA)
	task := send(t, c, userText("", "", "hot frozen cheese"))
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("task %s; want input-required", task.Status.State)
	}
	for _, id := range []string{"a", "b"} {
		if err := e.eng.PutPushConfig(ctx, askonce.PushConfig{TenantID: "tenant-a", JobID: string(task.ID), ID: id, URL: recv.URL + "/" + id}); err != nil {
			t.Fatal(err)
		}
	}
	asked, err := e.eng.Get(ctx, "tenant-a", string(task.ID))
	if err != nil {
		t.Fatal(err)
	}
	p := a2a.NewPusher(a2a.PusherConfig{Engine: e.eng, PublicURL: e.base, AllowPrivate: true})
	sends := p.Sends(asked, askonce.QuestionAsked)
	if len(sends) != 1 {
		t.Fatalf("sends of the question: %+v; want one", sends)
	}
	// Answered before the input-required push goes out.
	send(t, c, userText(task.ContextID, task.ID, "hot"))
	s := sends[0]
	s.Attempt = 1
	if err := p.Send(ctx, s); err != nil {
		t.Fatalf("the late input-required send: %v; want nil (nothing to retry)", err)
	}
	for _, id := range []string{"a", "b"} {
		waitEvent(t, e, "tenant-a", string(task.ID), askonce.EventNotifySkipped, `"to":"`+id+`"`, `"kind":"input-required"`, `"channel":"a2a-push"`, "no longer input-required")
	}
	recv.mu.Lock()
	n := len(recv.got)
	recv.mu.Unlock()
	if n != 0 {
		t.Errorf("the receiver got %d POSTs of the skipped push", n)
	}
}
