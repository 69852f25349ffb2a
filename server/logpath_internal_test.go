package server

import (
	"path"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// logPath redacts exactly the paths whose cleaned form is an answer link:
// its fast path for clean paths agrees with cleaning every path.
func TestLogPathRedactsExactlyTheAnswerLinks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		segs := rapid.SliceOfN(rapid.SampledFrom([]string{"", ".", "..", "a", "jobs", "ui", "x1", "a.", ".a"}), 0, 6).Draw(t, "segments")
		p := strings.Join(segs, "/")
		if rapid.Bool().Draw(t, "rooted") {
			p = "/" + p
		}
		redact := strings.HasPrefix(p, AnswerPathPrefix) || strings.HasPrefix(path.Clean("/"+p), AnswerPathPrefix)
		got := logPath(p)
		if redact != (got == AnswerPathPrefix+"{token}") || (!redact && got != p) {
			t.Fatalf("logPath(%q) = %q; redact %v", p, got, redact)
		}
	})
}
