package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// detectorCase is one row of a detector's table test: a request, and the
// question the detector should ask (no options: it must not ask).
type detectorCase struct {
	goal    string
	answer  string
	files   []string
	cands   []string // Request.Candidates
	schema  string   // Request.SpecSchema
	options []string // the options it asks with; nil: it does not ask
	text    string   // a fragment the question text must hold, if any
}

// runDetector runs one detector on each case through the general profile's
// input, and checks the question it would ask.
func runDetector(t *testing.T, detect func(*input) *asked, cases []detectorCase) {
	t.Helper()
	profiles, err := embeddedProfiles()
	if err != nil {
		t.Fatal(err)
	}
	p := profiles[DefaultProfile]
	for _, c := range cases {
		t.Run(c.goal, func(t *testing.T) {
			t.Parallel()
			prompt := c.goal
			if c.answer != "" {
				prompt = askonce.ResolvedPrompt(c.goal, c.answer)
			}
			r := &askonce.Request{Goal: c.goal, Prompt: prompt, Files: c.files, Candidates: c.cands}
			if c.schema != "" {
				r.SpecSchema = []byte(c.schema)
			}
			q := detect(newInput(p, prompt, r)).q
			switch {
			case c.options == nil && q != nil:
				t.Fatalf("asked %q %q; want no question", q.Text, q.Options)
			case c.options == nil:
			case q == nil:
				t.Fatalf("no question; want one with options %q", c.options)
			case len(c.options) > 0 && !slices.Equal(q.Options, c.options):
				t.Fatalf("options %q; want %q (question %q)", q.Options, c.options, q.Text)
			case !strings.Contains(q.Text, c.text):
				t.Fatalf("question %q lacks %q", q.Text, c.text)
			case strings.ContainsAny(q.Text, `"\`) && !strings.ContainsAny(c.goal, `"\`):
				t.Fatalf("question %q has straight quotes or escapes the goal does not; want typographic quotes", q.Text)
			}
		})
	}
}

// asks is the options of a question that must be asked ([]string{} for a
// question whose options are not checked).
func asks(options ...string) []string {
	if options == nil {
		return []string{}
	}
	return options
}
