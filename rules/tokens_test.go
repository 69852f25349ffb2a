package rules

import "testing"

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
