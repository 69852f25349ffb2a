package askonce_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/askonce/askonce"
)

// The engine hands the job's candidates to every interpreter call: the
// first, which asks, and the re-plan with the answer. A create with a bad
// candidate is refused before any call.
func TestEngine_PassesCandidatesToTheInterpreterOnCreateAndOnTheAnswer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[askonce.AttemptReason][]string{}
	calls := 0
	e := newEngine(t, askonce.InterpreterFunc(func(_ context.Context, req *askonce.Request) (*askonce.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		seen[req.Reason] = slices.Clone(req.Candidates)
		if req.Reason == askonce.ReasonClarificationAnswer {
			return &askonce.Response{Raw: []byte(planRaw)}, nil
		}
		return &askonce.Response{Raw: []byte(askTemp)}, nil
	}))
	names := []string{"black pepper", "bell pepper"}
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "use the pepper", SessionID: "s1", Candidates: names})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("create: %+v, %v; want pending", j, err)
	}
	if j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("hot")}); err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("answer: %+v, %v; want success", j, err)
	}
	mu.Lock()
	for _, r := range []askonce.AttemptReason{askonce.ReasonInitial, askonce.ReasonClarificationAnswer} {
		if got, ok := seen[r]; !ok || !slices.Equal(got, names) {
			t.Errorf("the %s call's candidates %q (called %v), want %q", r, got, ok, names)
		}
	}
	before := calls
	mu.Unlock()

	if _, err := e.Create(ctx, askonce.CreateRequest{Goal: "use the pepper", Candidates: []string{"pepper", "\x1b[2J"}}); askonce.ErrorCode(err) != askonce.EINVALID ||
		askonce.ErrorMessage(err) != "candidates[1] holds a control character" {
		t.Fatalf("create with a bad candidate: %v, want EINVALID naming candidates[1]", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != before {
		t.Errorf("a refused create called the interpreter")
	}
}
