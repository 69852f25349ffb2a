package rules_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/askonce/askonce"
)

// The Interpreter is safe for concurrent use: one interpreter, called
// from several goroutines at once over goals that run every detector and
// both planners, gives each request the output it gives alone. Run with
// -race, which also reports any shared state written during a call.
func TestInterpretConcurrent(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	files := []string{"a.md", "b/c.go", "docs/a.md", "notes.md"}
	cands := []string{"black pepper", "bell pepper", "DiningTable", "黒胡椒"}
	var reqs []*askonce.Request
	for _, r := range []req{
		{goal: "hot frozen cheese"},
		{goal: "hot frozen cheese", answer: "hot"},
		{goal: "hot frozen cheese", directive: fallback},
		{goal: "Set up the project:\n1. create the repo\n2. add a README, then write the CI config"},
		{goal: "delete notes.md or not", files: files},
		{goal: "edit the file", files: files},
		{goal: "use the pepper", cands: cands},
		{goal: "胡椒を使って、削除して", cands: cands},
		{goal: "ship the release", schema: envSchema},
		{goal: "ship the release", answer: "production", schema: envSchema},
		{goal: "deploy to staging or production"},
		{goal: "make it better"},
		{profile: minecraft, goal: "hot frozen cheese block", answer: "hot"},
		{profile: minecraft, goal: "a hot block that freezes water, then rm -rf it"},
	} {
		reqs = append(reqs, r.request())
	}
	want := make([][]byte, len(reqs))
	for i, r := range reqs {
		res, err := in.Interpret(context.Background(), r)
		if err != nil {
			t.Fatalf("%q: %v", r.Prompt, err)
		}
		want[i] = res.Raw
	}
	const workers, rounds = 4, 20
	got := make([][][]byte, workers) // by worker, by round and request
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := range rounds * len(reqs) {
				i := (k + w) % len(reqs) // each worker in its own order
				res, err := in.Interpret(context.Background(), reqs[i])
				if err != nil {
					got[w] = append(got[w], []byte(err.Error()))
					continue
				}
				got[w] = append(got[w], res.Raw)
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for k, raw := range got[w] {
			if i := (k + w) % len(reqs); !bytes.Equal(raw, want[i]) {
				t.Fatalf("worker %d, %q: got\n%s\nwant\n%s", w, reqs[i].Prompt, raw, want[i])
			}
		}
	}
}
