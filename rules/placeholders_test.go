package rules

import (
	"math/rand"
	"strings"
	"testing"
)

// A template's placeholders are expanded as strings.Replacer expands them:
// left to right, the first that matches, never inside a value put in.
func TestPlaceholdersExpandAsReplacer(t *testing.T) {
	t.Parallel()
	parts := []string{"{name}", "{id}", "{kind}", "{properties}", "{goal}", "{", "}", "{nam", "{{id}}", "name", "x", " ", "é"}
	values := []string{"", "{id}", "Icy Sword", "{goal}", "z"}
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		var b strings.Builder
		for k := r.Intn(8); k >= 0; k-- {
			b.WriteString(parts[r.Intn(len(parts))])
		}
		s := b.String()
		var v [5]string
		for k := range v {
			v[k] = values[r.Intn(len(values))]
		}
		want := strings.NewReplacer("{name}", v[0], "{id}", v[1], "{kind}", v[2], "{properties}", v[3], "{goal}", v[4]).Replace(s)
		ps := placeholders{{"{name}", v[0]}, {"{id}", v[1]}, {"{kind}", v[2]}, {"{properties}", v[3]}, {"{goal}", v[4]}}
		if got := ps.expand(s); got != want {
			t.Fatalf("expand(%q) with %q = %q, want %q", s, v, got, want)
		}
	}
}
