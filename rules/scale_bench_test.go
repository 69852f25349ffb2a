package rules_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// The text handling is linear in the goal's length: each benchmark plans
// a goal at a quarter, half and the full size the issue names, so ns/op
// doubling with the size shows it (docs/interpreters.md).
//   - one unbroken token of 32 KiB;
//   - 2,000 short sentences;
//   - 1,000 candidates, a quarter of them named in the goal;
//   - 500 list items, each with a pronoun and a code block.
func BenchmarkPlanScales(b *testing.B) {
	in := newInterpreter(b)
	ctx := context.Background()
	sentences := []string{"Wash the red mug.", "Keep the soup hot.", "Serve the drinks cold.", "Put the rye bread in the oven.", "Run go vet ./... before every release.", "Copy ./build/*.css to the cdn folder; then check https://example.com/a.b?c=d."}
	for _, frac := range []int{4, 2, 1} {
		token := strings.Repeat("abcdefg/", 32<<10/8/frac)
		var many strings.Builder
		for i := range 2000 / frac {
			many.WriteString(sentences[i%len(sentences)])
			many.WriteString(" ")
		}
		var code strings.Builder // a list whose items hold code blocks, and pronouns
		for i := range 500 / frac {
			fmt.Fprintf(&code, "- take the red mug out of the cupboard and rinse it\n  ```sh\n  make item%d\n  ```\n", i)
		}
		var cands []string
		var named strings.Builder
		for i := range 1000 / frac {
			cands = append(cands, fmt.Sprintf("item%d box", i))
			if i%4 == 0 {
				fmt.Fprintf(&named, "Move the item%d box to the shelf. ", i)
			}
		}
		for _, bc := range []struct {
			name string
			req  *askonce.Request
		}{
			{fmt.Sprintf("token-%dKiB", 32/frac), &askonce.Request{Goal: token, Attempt: 1}},
			{fmt.Sprintf("sentences-%d", 2000/frac), &askonce.Request{Goal: many.String(), Attempt: 1}},
			{fmt.Sprintf("candidates-%d", 1000/frac), &askonce.Request{Goal: named.String(), Candidates: cands, Attempt: 1}},
			{fmt.Sprintf("items-%d", 500/frac), &askonce.Request{Goal: code.String(), Candidates: []string{"red mug", "blue mug", "cupboard"}, Attempt: 1}},
		} {
			b.Run(bc.name, func(b *testing.B) {
				for b.Loop() {
					res, err := in.Interpret(ctx, bc.req)
					if err != nil || res.Outcome.Plan == nil {
						b.Fatalf("want a plan: %v %+v", err, res)
					}
				}
			})
		}
	}
}
