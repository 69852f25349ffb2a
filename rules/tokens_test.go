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
			toks := c.annotate(w, tokenize(w))
			if len(toks) != 1 || toks[0].fixed {
				t.Errorf("%s: %q was corrected to %q", name, w, toks[0].word)
			}
		}
		for w, want := range map[string]string{"frozn": "frozen", "fozen": "frozen", "burnning": "burning"} {
			toks := c.annotate(w, tokenize(w))
			if len(toks) != 1 || !toks[0].fixed || len(toks[0].e.sides) == 0 || toks[0].e.sides[0].display != want {
				t.Errorf("%s: %q corrected to %q, want the side word %q", name, w, toks[0].word, want)
			}
		}
	}
}

// countWords counts runs of letters, digits and marks, in any script, in
// strings and bytes alike; anything else, invalid UTF-8 included, ends a
// word.
func TestCountWordsCountsRunsOfLettersDigitsAndMarks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		want int64
	}{
		{"", 0},
		{"hot frozen cheese", 3},
		{`{"title":"Hot cheese","n":42}`, 5},
		{"café-au-lait, 2x", 4},
		{"e\u0301x y", 2},
		{"熱い凍ったチーズ を", 2},
		{"a\xffb", 2},
		{"ends in é", 3},
	} {
		if got := countWords(c.s); got != c.want {
			t.Errorf("countWords(%q) = %d, want %d", c.s, got, c.want)
		}
		if got := countWords([]byte(c.s)); got != c.want {
			t.Errorf("countWords([]byte(%q)) = %d, want %d", c.s, got, c.want)
		}
	}
}
