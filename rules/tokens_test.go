package rules

import "testing"

func TestWithinOneIsDamerauLevenshteinDistanceOne(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want bool
	}{
		{"frozn", "frozen", true},  // insertion
		{"frozen", "frozn", true},  // deletion
		{"frozan", "frozen", true}, // substitution
		{"forzen", "frozen", true}, // transposition
		{"frozen", "frozen", true},
		{"fzorne", "frozen", false},
		{"could", "cold", true}, // close, which is why known words are never corrected
		{"fro", "frozen", false},
	}
	for _, c := range cases {
		if got := withinOne([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("withinOne(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestCorrectNeverTouchesKnownWords(t *testing.T) {
	t.Parallel()
	m, err := embeddedProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"general", "minecraft-mod"} {
		c := m[name].c
		for _, w := range []string{"could", "world", "would", "scold", "heart", "front", "black", "smell", "notes.md"} {
			toks := c.annotate(w, tokenize(w, nil))
			if len(toks) != 1 || toks[0].fixed {
				t.Errorf("%s: %q was corrected to %q", name, w, toks[0].word)
			}
		}
		for w, want := range map[string]string{"frozn": "frozen", "fozen": "frozen", "burnning": "burning"} {
			toks := c.annotate(w, tokenize(w, nil))
			if len(toks) != 1 || !toks[0].fixed || len(toks[0].e.sides) == 0 || toks[0].e.sides[0].display != want {
				t.Errorf("%s: %q corrected to %q, want the side word %q", name, w, toks[0].word, want)
			}
		}
	}
}
