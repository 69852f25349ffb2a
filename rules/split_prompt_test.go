package rules

import (
	"slices"
	"testing"

	"github.com/askonce/askonce"
)

// A resolved prompt (docs/protocol.md rule 4) splits into the goal
// before the first marker, the last section as the answer, and the
// non-empty sections between as earlier answers.
func TestRule4_ResolvedPromptSplitsIntoGoalAnswerAndEarlierAnswers(t *testing.T) {
	t.Parallel()
	r := askonce.ResolvedPrompt
	cases := []struct {
		prompt, goal, answer string
		earlier              []string
	}{
		{"hot frozen cheese", "hot frozen cheese", "", nil},
		{r("hot frozen cheese", " hot "), "hot frozen cheese", "hot", nil},
		{r(r("a", "first"), "second"), "a", "second", []string{"first"}},
		{r(r(r("a", "one"), "  "), "three"), "a", "three", []string{"one"}},
		{r("a", ""), "a", "", nil},
	}
	for _, c := range cases {
		goal, answer, earlier := splitPrompt(c.prompt)
		if goal != c.goal || answer != c.answer || !slices.Equal(earlier, c.earlier) {
			t.Errorf("splitPrompt(%q) = %q, %q, %q; want %q, %q, %q", c.prompt, goal, answer, earlier, c.goal, c.answer, c.earlier)
		}
	}
}
