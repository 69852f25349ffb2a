package client_test

import (
	"context"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// Through the Go client: a project job's answer resolves another
// session's question, Memory lists it, Forget forgets it, and an answer
// given with DontRemember is not remembered.
func TestClientMemory_RememberListForgetAndDontRemember(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := newAPI(t)
	shop := &askonce.Memory{Scope: askonce.MemoryProject, Project: "shop"}
	project := client.MemoryQuery{Scope: askonce.MemoryProject, Project: "shop"}

	first, err := c.Create(ctx, client.CreateRequest{Goal: "hot frozen cheese", SessionID: "a", Memory: shop})
	if err != nil || first.Status != askonce.StatusPending {
		t.Fatalf("first: %+v %v", first, err)
	}
	if _, err := c.Reply(ctx, first.JobID, client.AnswerRequest{Answer: client.TextAnswer("frozen")}); err != nil {
		t.Fatal(err)
	}
	second, err := c.Create(ctx, client.CreateRequest{Goal: "hot frozen cheese", SessionID: "b", Memory: shop})
	if err != nil || second.ClarificationMemory == nil || second.ClarificationMemory.JobID != first.JobID {
		t.Fatalf("second: %+v %v; want answered from the first job's memory", second, err)
	}
	list, err := c.Memory(ctx, project)
	if err != nil || len(list.Entries) != 1 || list.Entries[0].Answer != "frozen" {
		t.Fatalf("memory: %+v %v", list, err)
	}
	if _, err := c.Forget(ctx, list.Entries[0].QuestionHash, project); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Forget(ctx, list.Entries[0].QuestionHash, project); !client.IsNotFound(err) {
		t.Fatalf("forgetting again: %v, want not found", err)
	}

	third, err := c.Create(ctx, client.CreateRequest{Goal: "hot frozen cheese", SessionID: "c", Memory: shop})
	if err != nil || third.Status != askonce.StatusPending {
		t.Fatalf("after forget: %+v %v, want pending", third, err)
	}
	if _, err := c.Reply(ctx, third.JobID, client.AnswerRequest{Answer: client.TextAnswer("hot"), DontRemember: true}); err != nil {
		t.Fatal(err)
	}
	if list, err := c.Memory(ctx, project); err != nil || len(list.Entries) != 0 {
		t.Fatalf("memory after a don't-remember answer: %+v %v, want none", list, err)
	}
	if _, err := c.Memory(ctx, client.MemoryQuery{Scope: "galaxy"}); !client.IsInvalid(err) {
		t.Fatalf("an unknown scope: %v, want invalid", err)
	}
}
