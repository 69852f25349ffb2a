package rules

import "testing"

// TestQuoteListJoinsInTheQuestionsLanguage pins quoteList: one phrase
// alone, two with the conjunction, more with commas before it; in
// Japanese, corner brackets joined by 、.
func TestQuoteListJoinsInTheQuestionsLanguage(t *testing.T) {
	t.Parallel()
	en, ja := &input{}, &input{japanese: true}
	cases := []struct {
		in    *input
		words []string
		and   string
		want  string
	}{
		{en, []string{"hot"}, "and", "“hot”"},
		{en, []string{"hot", "frozen"}, "and", "“hot” and “frozen”"},
		{en, []string{"solid", "liquid", "gas"}, "or", "“solid”, “liquid” or “gas”"},
		{ja, []string{"熱い"}, "and", "「熱い」"},
		{ja, []string{"熱い", "冷たい", "温い"}, "and", "「熱い」、「冷たい」、「温い」"},
	}
	for _, c := range cases {
		if got := c.in.quoteList(c.words, c.and); got != c.want {
			t.Errorf("quoteList(%q, %q), japanese %v = %q, want %q", c.words, c.and, c.in.japanese, got, c.want)
		}
	}
}
