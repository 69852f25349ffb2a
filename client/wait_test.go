package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// slowRules is the rules interpreter that takes a while per call, like an
// LLM.
type slowRules struct {
	inner askonce.Interpreter
	delay time.Duration
}

func (s slowRules) Interpret(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.inner.Interpret(ctx, req)
}

func newSlowAPI(t *testing.T, delay time.Duration) *client.Client {
	t.Helper()
	c, _ := newAPIWith(t, func(r askonce.Interpreter) askonce.Interpreter { return slowRules{r, delay} })
	return c
}

func TestWaitJobReturnsWhenTheJobLeavesPlanning(t *testing.T) {
	t.Parallel()
	c := newSlowAPI(t, 300*time.Millisecond)
	ctx := context.Background()
	j, err := c.CreateAsync(ctx, client.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusPlanning {
		t.Fatalf("CreateAsync: status %s, want planning", j.Status)
	}
	var seen []askonce.EventType
	d, err := c.WaitJobProgress(ctx, j.JobID, func(ev askonce.Event) { seen = append(seen, ev.Type) })
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != askonce.StatusPending || d.ClarificationQuestion == "" {
		t.Fatalf("WaitJob returned %s with question %q, want pending with the question", d.Status, d.ClarificationQuestion)
	}
	if len(seen) == 0 || seen[0] != askonce.EventCreated || seen[len(seen)-1] != askonce.EventAsked {
		t.Errorf("progress saw %v, want created ... asked", seen)
	}

	a, err := c.AnswerAsync(ctx, j.JobID, "hot")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != askonce.StatusPlanning || a.ClarificationAnswer != "hot" {
		t.Fatalf("AnswerAsync returned %s, want planning with the answer", a.Status)
	}
	d, err = c.WaitJob(ctx, j.JobID)
	if err != nil || d.Status != askonce.StatusSuccess {
		t.Fatalf("WaitJob after the answer: %v, %v; want success", d, err)
	}
}

func TestWaitJobOfASettledJobReturnsAtOnce(t *testing.T) {
	t.Parallel()
	c, _ := newAPI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	j, err := c.Create(ctx, client.CreateRequest{Goal: "write the README then add tests"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.WaitJob(ctx, j.JobID)
	if err != nil || d.Status != askonce.StatusSuccess {
		t.Fatalf("WaitJob: %v, %v; want the success", d, err)
	}
}

func TestWaitJobOfAnUnknownJobIsNotFound(t *testing.T) {
	t.Parallel()
	c, _ := newAPI(t)
	if _, err := c.WaitJob(context.Background(), "01a1fcaa-c791-75be-a4f3-615b9171ac2e"); !client.IsNotFound(err) {
		t.Fatalf("WaitJob of an unknown id: %v, want not found", err)
	}
}

func TestWaitJobEndsWithTheContext(t *testing.T) {
	t.Parallel()
	c := newSlowAPI(t, 2*time.Second)
	j, err := c.CreateAsync(context.Background(), client.CreateRequest{Goal: "hot frozen cheese"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.WaitJob(ctx, j.JobID); err != context.DeadlineExceeded {
		t.Fatalf("WaitJob past its context: %v, want DeadlineExceeded", err)
	}
}
